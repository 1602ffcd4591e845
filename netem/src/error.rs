//! The one error type of the crate: a profile that does not parse, a network this process may
//! not create (refused before anything is changed), a request the crate cannot serve, and a
//! step of the set-up that failed (after which what it made is removed).

/// Why a profile could not be read or a network could not be created.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A profile that is neither a named one nor `key=value` fields.
    #[error(
        "unknown network profile `{0}`: use none, lan, region, wan or rtt=DURATION,rate=RATE \
         (for example rtt=50ms,rate=200mbit)"
    )]
    UnknownProfile(String),
    /// A field of a profile that is not `key=value`.
    #[error("`{field}` in profile `{profile}` is not key=value")]
    NotKeyValue {
        /// The field.
        field: String,
        /// The profile as given.
        profile: String,
    },
    /// A key a profile does not have.
    #[error("unknown key `{key}` in profile `{profile}`: the keys are name, rtt, rate")]
    UnknownKey {
        /// The key.
        key: String,
        /// The profile as given.
        profile: String,
    },
    /// A profile name with characters a report or a file name cannot carry.
    #[error("profile name `{0}`: use letters, digits, '-', '_' or '.'")]
    ProfileName(String),
    /// A round trip that is not a non-negative number with a unit.
    #[error("`{0}` is not a duration")]
    NotADuration(String),
    /// A round trip without a unit this crate reads.
    #[error("`{0}`: a duration needs a unit: us, ms or s (for example 20ms)")]
    DurationUnit(String),
    /// A round trip too long for any network.
    #[error("`{0}`: a round trip above 60 s is not a network")]
    RoundTripTooLong(String),
    /// A rate that is not a non-negative number with a unit.
    #[error("`{0}` is not a rate")]
    NotARate(String),
    /// A rate without a unit this crate reads.
    #[error("`{0}`: a rate is in bit, kbit, mbit or gbit per second (for example 200mbit)")]
    RateUnit(String),
    /// A rate `tc` cannot shape.
    #[error("`{0}`: a rate must lie between 8 bit/s and 1000 gbit/s")]
    RateRange(String),
    /// The process lacks a right or a program the profile needs; nothing was changed.
    #[error(
        "cannot create the emulated network `{profile}`: missing {} (profile `none` needs none \
         of these)",
        missing.join(", ")
    )]
    Refused {
        /// The profile's name.
        profile: String,
        /// Each missing piece, in words (`CAP_NET_ADMIN`, `` `tc` (iproute2) at /x/tc ``...).
        missing: Vec<String>,
    },
    /// A number of parties a network cannot hold.
    #[error("a network holds 1 to {} parties, not {0}", crate::MAX_PARTIES)]
    Parties(usize),
    /// A step of the set-up failed; what it had made is removed.
    #[error("could not set up the emulated network: {step}: {detail}")]
    Setup {
        /// The step.
        step: String,
        /// What went wrong: the system's error, or the first lines a program printed.
        detail: String,
    },
}
