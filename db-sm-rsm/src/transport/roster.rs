//! Who may post what on the bulletin board: the run's roster (every party's name and the
//! certificate it connects with) and the owner of every tag.
//!
//! A tag's owner is named by its last path component, the way [`crate::transport::Ctx::tag`]
//! builds tags: a party's step ends in the party (`main/mixing/.../mixer 2`,
//! `.../verifier`), so does a party's verdict (`<label>/verdict/mixer 1`), the timers a party
//! posts at the end (`records/mixer 0`) and a mixer's permutation commitment
//! (`preprocessing/permcomm/mixer 3`). Every other tag, whose last component names no party, is
//! the driver's (the dealer's keys, the senders' inputs, `records/driver`). The board files a
//! post only under a tag its sender owns ([`owner`]), so no party can speak for another, a
//! verdict included.

use tls_link::Certificate;

use crate::Error;

/// The driver's name on the board: the dealer, the senders and the process that writes the
/// report.
pub const DRIVER: &str = "driver";
/// The verifier's name on the board.
pub const VERIFIER: &str = "verifier";

/// The party a tag component names, if it names one: `verifier`, `driver` or `mixer K` (K in
/// decimal without leading zeros).
fn party_named(component: &str) -> Option<&str> {
    match component {
        VERIFIER | DRIVER => Some(component),
        _ => {
            let k: usize = component.strip_prefix("mixer ")?.parse().ok()?;
            (format!("mixer {k}") == component).then_some(component)
        }
    }
}

/// The name of the party that owns `tag`: the party its last path component names, or the
/// driver.
pub fn owner(tag: &str) -> &str {
    let last = tag.rsplit('/').next().unwrap_or(tag);
    party_named(last).unwrap_or(DRIVER)
}

/// The tag under which party `name` posts its timers (and the driver its statuses) at the end.
pub fn records_tag(name: &str) -> String {
    format!("records/{name}")
}

/// The names of a run's parties besides the driver: every mix-server, then the verifier.
pub fn party_names(m: usize) -> Vec<String> {
    (0..m)
        .map(|k| format!("mixer {k}"))
        .chain([VERIFIER.to_string()])
        .collect()
}

/// The parties that may connect to the board, each with the certificate it presents.
#[derive(Clone, Debug)]
pub struct Roster {
    members: Vec<(String, Certificate<'static>)>,
}

impl Roster {
    /// A roster of `members` (name, certificate); refused when a name repeats, when two members
    /// share a certificate, or when the driver is missing.
    pub fn new(members: Vec<(String, Certificate<'static>)>) -> crate::Result<Roster> {
        for (i, (name, cert)) in members.iter().enumerate() {
            if party_named(name).is_none() {
                return Err(Error::Input(format!("{name:?} is not a party's name")));
            }
            if members[..i].iter().any(|(n, c)| n == name || c == cert) {
                return Err(Error::Input(format!("{name} is on the roster twice")));
            }
        }
        if !members.iter().any(|(n, _)| n == DRIVER) {
            return Err(Error::Input("the roster has no driver".into()));
        }
        Ok(Roster { members })
    }

    /// The member presenting `cert`.
    pub fn name_of(&self, cert: &Certificate<'_>) -> Option<&str> {
        self.members
            .iter()
            .find(|(_, c)| c.as_ref() == cert.as_ref())
            .map(|(n, _)| n.as_str())
    }

    /// Every member's name and certificate, in roster order.
    pub fn members(&self) -> &[(String, Certificate<'static>)] {
        &self.members
    }

    /// Every member's certificate.
    pub fn certificates(&self) -> Vec<Certificate<'static>> {
        self.members.iter().map(|(_, c)| c.clone()).collect()
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// True iff nobody is on the roster (never, for a valid one).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// True iff `name` is on the roster.
    pub fn contains(&self, name: &str) -> bool {
        self.members.iter().any(|(n, _)| n == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measurement::report::{Party, Report, Totals};
    use crate::transport::Ctx;

    /// Every tag the protocol's steps build, at a place of the run, has the owner its author is:
    /// parties' steps and verdicts, the driver's steps, the fixed tags of preprocessing and the
    /// end.
    #[test]
    fn every_kind_of_tag_belongs_to_its_author() {
        let mut c = Ctx::local(Report::new(12, false));
        c.section("main", Totals::None, |c| {
            c.section("mixing", Totals::Mixers, |c| {
                for k in [0, 2, 11] {
                    let name = format!("mixer {k}");
                    let step = c.tag(Some(Party::Mixer(k)), "re-encryption");
                    assert_eq!(owner(&step), name, "{step}");
                    let verdict = c.tag(Some(Party::Mixer(k)), "verifying others'/verdict");
                    assert_eq!(owner(&verdict), name, "{verdict}");
                }
                let v = c.tag(
                    Some(Party::Verifier),
                    "creating BB signatures and encryptions",
                );
                assert_eq!(owner(&v), VERIFIER);
                // A label with slashes of its own, of the driver and of a mixer.
                let d = c.tag(None, "creating multiplicative shares for delta1/2 step 1/2");
                assert_eq!(owner(&d), DRIVER);
                let m = c.tag(Some(Party::Mixer(1)), "delta1/2 step 1/2");
                assert_eq!(owner(&m), "mixer 1");
                assert_eq!(owner(&c.tag(None, "input preparation")), DRIVER);
            });
        });
        for (tag, who) in [
            ("preprocessing/keys", DRIVER),
            ("preprocessing/commitment keys", DRIVER),
            ("preprocessing/run id", DRIVER),
            ("preprocessing/permcomm/mixer 3", "mixer 3"),
            ("collusion/blinding shares/mixer 1", "mixer 1"),
            ("records/mixer 0", "mixer 0"),
            ("records/verifier", VERIFIER),
            ("records/driver", DRIVER),
            // Near misses name no party: the driver's.
            ("x/mixer 01", DRIVER),
            ("x/mixer -1", DRIVER),
            ("x/mixer", DRIVER),
            ("x/mixer 1 ", DRIVER),
            ("x/Verifier", DRIVER),
            ("", DRIVER),
        ] {
            assert_eq!(owner(tag), who, "{tag:?}");
        }
        assert_eq!(records_tag("mixer 2"), "records/mixer 2");
        assert_eq!(owner(&records_tag("verifier")), VERIFIER);
        for name in party_names(3) {
            assert_eq!(owner(&records_tag(&name)), name);
        }
    }

    #[test]
    fn a_roster_names_each_certificate_once_and_has_a_driver() {
        let ids: Vec<_> = (0..3)
            .map(|_| tls_link::Identity::generate().unwrap())
            .collect();
        let member = |n: &str, i: usize| (n.to_string(), ids[i].cert.clone());
        let r = Roster::new(vec![member("mixer 0", 0), member("driver", 1)]).unwrap();
        assert_eq!(r.name_of(&ids[1].cert), Some("driver"));
        assert_eq!(r.name_of(&ids[2].cert), None);
        assert!(r.contains("mixer 0") && !r.contains("verifier"));
        assert!(
            Roster::new(vec![member("mixer 0", 0)]).is_err(),
            "no driver"
        );
        assert!(Roster::new(vec![member("driver", 0), member("driver", 1)]).is_err());
        assert!(Roster::new(vec![member("driver", 0), member("mixer 1", 0)]).is_err());
        assert!(Roster::new(vec![member("driver", 0), member("board", 1)]).is_err());
    }
}
