//! Deliberate faults, for the negative tests: one party adds 1 (or the group generator) to one
//! value. Each must make the run fail: the semi-honest proof no longer verifies, and the
//! malicious variant aborts at its MAC check (or, for `C`, at every party's verification).

use std::fmt;

use ark_ec::Group;
use ark_ff::PrimeField;

use crate::dealer::Shares;
use crate::Error;

/// Which value a tampering party corrupts, and where in the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Adds 1 to the party's share of private wire number `index` (counted from the first
    /// private wire).
    Witness(usize),
    /// Adds 1 to the party's share of triple `index`'s `x`.
    TripleX(usize),
    /// Adds 1 to the party's share of triple `index`'s `z`.
    TripleZ(usize),
    /// Adds the generator to the party's share of `A` before it is opened.
    AShare,
    /// Adds the generator to the party's share of `B` in G2 before it is opened.
    BShare,
    /// Adds the generator to the party's share of `C` before it is opened.
    CShare,
}

/// A fault and the party that commits it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tamper {
    /// The id of the party that commits the fault.
    pub party: usize,
    /// The value it corrupts.
    pub fault: Fault,
}

impl Tamper {
    /// `KIND:PARTY[:INDEX]`, KIND one of witness, triple-x, triple-z (with an index), a-share,
    /// c-share.
    pub fn parse(s: &str) -> Result<Self, Error> {
        let bad = || {
            Error::Invalid(format!(
                "--tamper {s:?}: expected witness:PARTY:INDEX, triple-x:PARTY:INDEX, \
                 triple-z:PARTY:INDEX, a-share:PARTY, b-share:PARTY or c-share:PARTY"
            ))
        };
        let parts: Vec<&str> = s.split(':').collect();
        let num = |i: usize| -> Result<usize, Error> {
            parts.get(i).and_then(|p| p.parse().ok()).ok_or_else(bad)
        };
        let party = num(1)?;
        let fault = match (parts[0], parts.len()) {
            ("witness", 3) => Fault::Witness(num(2)?),
            ("triple-x", 3) => Fault::TripleX(num(2)?),
            ("triple-z", 3) => Fault::TripleZ(num(2)?),
            ("a-share", 2) => Fault::AShare,
            ("b-share", 2) => Fault::BShare,
            ("c-share", 2) => Fault::CShare,
            _ => return Err(bad()),
        };
        Ok(Tamper { party, fault })
    }

    /// Applies a preprocessing fault to party `shares.id`'s shares, if it is that party's.
    pub fn apply_to_shares<F: PrimeField>(&self, shares: &mut Shares<F>) -> Result<(), Error> {
        if self.party != shares.id {
            return Ok(());
        }
        let (v, i, what) = match self.fault {
            Fault::Witness(i) => (&mut shares.w, i, "private wires"),
            Fault::TripleX(i) => (&mut shares.x, i, "triples"),
            Fault::TripleZ(i) => (&mut shares.z, i, "triples"),
            Fault::AShare | Fault::BShare | Fault::CShare => return Ok(()),
        };
        let n = v.len();
        let x = v.get_mut(i).ok_or_else(|| {
            Error::Invalid(format!("--tamper: index {i} out of range ({n} {what})"))
        })?;
        *x += F::one();
        Ok(())
    }

    /// The generator if party `id` is to shift its share of the opened point `fault`, else
    /// the identity.
    pub fn point_shift<G: Group>(tamper: Option<Tamper>, id: usize, fault: Fault) -> G {
        match tamper {
            Some(t) if t.party == id && t.fault == fault => G::generator(),
            _ => G::zero(),
        }
    }
}

impl fmt::Display for Tamper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.party;
        match self.fault {
            Fault::Witness(i) => write!(f, "witness:{p}:{i}"),
            Fault::TripleX(i) => write!(f, "triple-x:{p}:{i}"),
            Fault::TripleZ(i) => write!(f, "triple-z:{p}:{i}"),
            Fault::AShare => write!(f, "a-share:{p}"),
            Fault::BShare => write!(f, "b-share:{p}"),
            Fault::CShare => write!(f, "c-share:{p}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        for s in [
            "witness:1:7",
            "triple-x:0:3",
            "triple-z:2:0",
            "a-share:1",
            "b-share:2",
            "c-share:0",
        ] {
            assert_eq!(Tamper::parse(s).unwrap().to_string(), s);
        }
        for s in ["witness:1", "a-share:1:2", "nope:0", "witness:x:1", ""] {
            assert!(Tamper::parse(s).is_err(), "{s}");
        }
    }
}
