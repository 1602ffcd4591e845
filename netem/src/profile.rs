//! Network profiles: a name, a round-trip time and a rate per link, as data.
//!
//! A profile is written either as a known name (`none`, `lan`, `region`, `wan`) or as
//! `rtt=50ms,rate=200mbit` (optionally with `name=...`). Rates are in bits per second with
//! decimal prefixes, as `tc` reads them (`kbit`, `mbit`, `gbit`: 10^3, 10^6, 10^9); `rate=unlimited`
//! (or no `rate`) leaves the links unshaped. Durations take `us`, `ms` or `s`.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::Error;

/// A rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    /// Bits per second.
    pub fn bits_per_second(self) -> u64 {
        self.0
    }

    /// Bytes per second.
    pub fn bytes_per_second(self) -> f64 {
        self.0 as f64 / 8.0
    }

    /// The rate as `tc` writes it (`100mbit`).
    pub fn tc_spec(self) -> String {
        for (unit, scale) in [
            ("gbit", 1_000_000_000),
            ("mbit", 1_000_000),
            ("kbit", 1_000),
        ] {
            if self.0 >= scale && self.0.is_multiple_of(scale) {
                return format!("{}{unit}", self.0 / scale);
            }
        }
        format!("{}bit", self.0)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = self.0 as f64;
        if bits >= 1e9 {
            write!(f, "{} Gbit/s", trim(bits / 1e9))
        } else if bits >= 1e6 {
            write!(f, "{} Mbit/s", trim(bits / 1e6))
        } else if bits >= 1e3 {
            write!(f, "{} kbit/s", trim(bits / 1e3))
        } else {
            write!(f, "{} bit/s", self.0)
        }
    }
}

fn trim(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn duration_spec(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns == 0 {
        "0ms".into()
    } else if ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1_000) {
        format!("{}us", ns / 1_000)
    } else {
        format!("{ns}ns")
    }
}

/// What each party's link to the hub does to traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Link {
    /// The round-trip time between two parties, half of it added in each direction.
    pub rtt: Duration,
    /// The rate of each party's link, in each direction; `None` leaves the link unshaped.
    pub rate: Option<Rate>,
}

impl Link {
    /// The delay added to each packet in each direction: half the round-trip time.
    pub fn one_way_delay(&self) -> Duration {
        self.rtt / 2
    }

    /// The bandwidth-delay product in bytes (zero for an unshaped link).
    pub fn bdp_bytes(&self) -> u64 {
        match self.rate {
            Some(r) => (r.bytes_per_second() * self.rtt.as_secs_f64()) as u64,
            None => 0,
        }
    }
}

/// A named network profile. `link: None` is plain loopback: no namespaces, no delay, no rate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Profile {
    /// The name reports and file names carry (`lan`, `wan`, or one given with `name=`).
    pub name: String,
    /// Each party's link to the hub; `None` for loopback.
    pub link: Option<Link>,
}

impl Profile {
    /// Plain loopback on the host: no namespaces, and no rights needed.
    pub fn none() -> Profile {
        Profile {
            name: "none".into(),
            link: None,
        }
    }

    /// A data-centre LAN: 0.2 ms round trip, 10 Gbit/s.
    pub fn lan() -> Profile {
        Profile::emulated(
            "lan",
            Duration::from_micros(200),
            Some(Rate(10_000_000_000)),
        )
    }

    /// Two data centres of one region: 20 ms round trip, 1 Gbit/s.
    pub fn region() -> Profile {
        Profile::emulated(
            "region",
            Duration::from_millis(20),
            Some(Rate(1_000_000_000)),
        )
    }

    /// A wide-area path between continents: 100 ms round trip, 100 Mbit/s.
    pub fn wan() -> Profile {
        Profile::emulated("wan", Duration::from_millis(100), Some(Rate(100_000_000)))
    }

    /// A profile of parties in namespaces with the given round trip and rate.
    pub fn emulated(name: &str, rtt: Duration, rate: Option<Rate>) -> Profile {
        Profile {
            name: name.into(),
            link: Some(Link { rtt, rate }),
        }
    }

    /// The named profiles, in order of distance.
    pub fn known() -> Vec<Profile> {
        vec![
            Profile::none(),
            Profile::lan(),
            Profile::region(),
            Profile::wan(),
        ]
    }

    /// Whether the parties run in namespaces (every profile but `none`).
    pub fn is_emulated(&self) -> bool {
        self.link.is_some()
    }

    /// The profile written back in the form [`FromStr`] reads: `none`, or
    /// `name=...,rtt=...,rate=...`.
    pub fn spec(&self) -> String {
        match &self.link {
            None => "none".into(),
            Some(link) => {
                let rate = link.rate.map_or("unlimited".into(), |r| r.tc_spec());
                format!(
                    "name={},rtt={},rate={rate}",
                    self.name,
                    duration_spec(link.rtt)
                )
            }
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.link {
            None => write!(f, "{} (plain loopback)", self.name),
            Some(link) => {
                let ms = link.rtt.as_secs_f64() * 1e3;
                match link.rate {
                    Some(r) => write!(f, "{} ({} ms RTT, {r})", self.name, trim(ms)),
                    None => write!(f, "{} ({} ms RTT, unshaped)", self.name, trim(ms)),
                }
            }
        }
    }
}

/// Splits `12.5ms` into (12.5, "ms").
fn number_and_unit(s: &str) -> Option<(f64, &str)> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let value: f64 = s[..end].parse().ok()?;
    (value.is_finite() && value >= 0.0).then_some((value, &s[end..]))
}

/// Reads `250us`, `0.2ms`, `20ms`, `1s` (and `0`).
pub fn parse_duration(s: &str) -> Result<Duration, Error> {
    let s = s.trim();
    let (value, unit) = number_and_unit(s).ok_or_else(|| Error::NotADuration(s.into()))?;
    let scale = match unit {
        "" if value == 0.0 => 0.0,
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return Err(Error::DurationUnit(s.into())),
    };
    let secs = value * scale;
    if secs > 60.0 {
        return Err(Error::RoundTripTooLong(s.into()));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Reads `200mbit`, `1gbit`, `500kbit`, `1000bit`: bits per second, decimal prefixes.
pub fn parse_rate(s: &str) -> Result<Rate, Error> {
    let s = s.trim();
    let (value, unit) = number_and_unit(s).ok_or_else(|| Error::NotARate(s.into()))?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "bit" => 1.0,
        "kbit" => 1e3,
        "mbit" => 1e6,
        "gbit" => 1e9,
        _ => return Err(Error::RateUnit(s.into())),
    };
    let bits = (value * scale).round();
    if !(8.0..=1e12).contains(&bits) {
        return Err(Error::RateRange(s.into()));
    }
    Ok(Rate(bits as u64))
}

impl FromStr for Profile {
    type Err = Error;

    fn from_str(s: &str) -> Result<Profile, Error> {
        let s = s.trim();
        match s.to_ascii_lowercase().as_str() {
            "none" | "loopback" => return Ok(Profile::none()),
            "lan" => return Ok(Profile::lan()),
            "region" => return Ok(Profile::region()),
            "wan" => return Ok(Profile::wan()),
            _ => {}
        }
        if !s.contains('=') {
            return Err(Error::UnknownProfile(s.into()));
        }
        let (mut name, mut rtt, mut rate) = (None, None, None);
        for field in s.split(',') {
            let (key, value) = field.split_once('=').ok_or_else(|| Error::NotKeyValue {
                field: field.into(),
                profile: s.into(),
            })?;
            match key.trim() {
                "name" => {
                    let v = value.trim();
                    if v.is_empty()
                        || !v
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                    {
                        return Err(Error::ProfileName(v.into()));
                    }
                    name = Some(v.to_string());
                }
                "rtt" => rtt = Some(parse_duration(value)?),
                "rate" => {
                    rate = match value.trim() {
                        "unlimited" | "none" => Some(None),
                        v => Some(Some(parse_rate(v)?)),
                    }
                }
                other => {
                    return Err(Error::UnknownKey {
                        key: other.into(),
                        profile: s.into(),
                    })
                }
            }
        }
        let link = Link {
            rtt: rtt.unwrap_or(Duration::ZERO),
            rate: rate.unwrap_or(None),
        };
        let name = name.unwrap_or_else(|| {
            let rate = link.rate.map_or("unlimited".into(), |r| r.tc_spec());
            format!("rtt{}-{rate}", duration_spec(link.rtt))
        });
        Ok(Profile {
            name,
            link: Some(link),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The round trip and rate of the profile `spec` names.
    fn link(spec: &str) -> (Duration, Option<Rate>) {
        let link = spec.parse::<Profile>().unwrap().link.unwrap();
        (link.rtt, link.rate)
    }

    #[test]
    fn known_profiles_have_the_stated_figures() {
        let ms = Duration::from_millis;
        assert_eq!(
            link("lan"),
            (Duration::from_micros(200), Some(Rate(10_000_000_000)))
        );
        assert_eq!(link("WAN"), (ms(100), Some(Rate(100_000_000))));
        assert_eq!(link("region"), (ms(20), Some(Rate(1_000_000_000))));
        assert!(!"none".parse::<Profile>().unwrap().is_emulated());
    }

    #[test]
    fn custom_profiles_parse_and_round_trip() {
        let ms = Duration::from_millis;
        assert_eq!(
            link("rtt=50ms,rate=200mbit"),
            (ms(50), Some(Rate(200_000_000)))
        );
        let p: Profile = "rtt=50ms,rate=200mbit".parse().unwrap();
        assert_eq!(p.link.unwrap().one_way_delay(), ms(25));
        assert_eq!(p.spec().parse::<Profile>().unwrap(), p);
        assert_eq!(link("name=sat,rtt=0.6s,rate=unlimited"), (ms(600), None));
        let q: Profile = "name=sat,rtt=0.6s,rate=unlimited".parse().unwrap();
        assert_eq!(q.name, "sat");
        assert_eq!(q.spec().parse::<Profile>().unwrap(), q);
        for known in Profile::known() {
            let back: Profile = known.spec().parse().unwrap();
            assert_eq!(back.link, known.link);
        }
        assert_eq!(link("rtt=250us").0, Duration::from_micros(250));
        assert_eq!(parse_rate("1.5gbit").unwrap(), Rate(1_500_000_000));
    }

    #[test]
    fn bad_profiles_are_refused_with_the_reason() {
        for (spec, needle) in [
            ("moon", "unknown network profile"),
            ("rtt=50", "needs a unit"),
            ("rtt=50ms,rate=200mbps", "bit, kbit, mbit or gbit"),
            ("rtt=50ms,loss=1%", "unknown key `loss`"),
            ("rtt=-1ms", "not a duration"),
            ("rate=0bit", "between"),
            ("name=a b,rtt=1ms", "profile name"),
            ("rtt=2h", "unit"),
        ] {
            let err = spec.parse::<Profile>().unwrap_err().to_string();
            assert!(err.contains(needle), "{spec}: {err}");
        }
    }

    #[test]
    fn rates_print_as_tc_reads_them() {
        assert_eq!(Rate(100_000_000).tc_spec(), "100mbit");
        assert_eq!(Rate(10_000_000_000).tc_spec(), "10gbit");
        assert_eq!(Rate(1_500_000).tc_spec(), "1500kbit");
        assert_eq!(Rate(1_000_000_000).to_string(), "1 Gbit/s");
        assert_eq!(Profile::wan().to_string(), "wan (100 ms RTT, 100 Mbit/s)");
    }
}
