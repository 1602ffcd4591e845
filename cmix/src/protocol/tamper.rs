//! Faults a node can be told to commit, one per run, so that every check of the protocol has
//! a run in which it must fire. Nodes are numbered 0 (first), 1 (middle), 2 (last).

use std::fmt;

use crate::group::Group;
use crate::Error;

/// The tag a node multiplies into a slot in the tagging attack (`tag:N:S`): any element but the
/// identity serves; this one is public, so a colluding node can divide it out again.
pub fn tag<G: Group>(g: &G) -> G::Elem {
    g.exp_g(&g.challenge_scalar(&[1; 16]))
}

/// One fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tamper {
    /// `proof:N`: node N publishes its key share with a wrong proof of knowledge.
    Proof {
        /// The deviating node.
        node: usize,
    },
    /// `element:N`: node N's premix output starts with bytes that are not a group element.
    Element {
        /// The deviating node.
        node: usize,
    },
    /// `tag:N:S`: node N multiplies input slot S by a tag in the real-time preprocessing (the
    /// tagging attack); the output slot no longer decodes to a message.
    Tag {
        /// The deviating node.
        node: usize,
        /// The input slot tagged.
        slot: usize,
    },
    /// `share:N:S`: node N releases a decryption share for output slot S that differs from
    /// the one it committed to in the precomputation.
    Share {
        /// The deviating node.
        node: usize,
        /// The output slot whose share differs.
        slot: usize,
    },
    /// `opening:S`: the last node changes mixed slot S after committing to the real-time
    /// result (the check stops this change only: see the crate's threat model).
    Opening {
        /// The mixed slot changed.
        slot: usize,
    },
}

impl Tamper {
    /// Reads a fault as the command line writes it (`proof:N`, `element:N`, `tag:N:S`,
    /// `share:N:S`, `opening:S`).
    pub fn parse(s: &str) -> Result<Tamper, Error> {
        let parts: Vec<&str> = s.split(':').collect();
        let num = |i: usize, what: &'static str| -> Result<usize, Error> {
            parts
                .get(i)
                .ok_or_else(|| Error::TamperMissing {
                    spec: s.into(),
                    what,
                })?
                .parse()
                .map_err(|_| Error::TamperNumber {
                    spec: s.into(),
                    what,
                })
        };
        let t = match parts[0] {
            "proof" if parts.len() == 2 => Tamper::Proof {
                node: num(1, "node")?,
            },
            "element" if parts.len() == 2 => Tamper::Element {
                node: num(1, "node")?,
            },
            "tag" if parts.len() == 3 => Tamper::Tag {
                node: num(1, "node")?,
                slot: num(2, "slot")?,
            },
            "share" if parts.len() == 3 => Tamper::Share {
                node: num(1, "node")?,
                slot: num(2, "slot")?,
            },
            "opening" if parts.len() == 2 => Tamper::Opening {
                slot: num(1, "slot")?,
            },
            _ => return Err(Error::TamperKind(s.into())),
        };
        Ok(t)
    }

    /// Checks node and slot numbers against the run's 3 nodes and `slots` slots.
    pub fn check(&self, slots: usize) -> Result<(), Error> {
        let (node, slot) = match *self {
            Tamper::Proof { node } | Tamper::Element { node } => (Some(node), None),
            Tamper::Tag { node, slot } | Tamper::Share { node, slot } => (Some(node), Some(slot)),
            Tamper::Opening { slot } => (None, Some(slot)),
        };
        if let Some(n) = node {
            if n >= crate::NODES {
                return Err(Error::TamperNode {
                    tamper: *self,
                    node: n,
                });
            }
        }
        if let Some(s) = slot {
            if s >= slots {
                return Err(Error::TamperSlot {
                    tamper: *self,
                    slot: s,
                    slots,
                });
            }
        }
        Ok(())
    }

    /// The fault node `node` commits, if it is the one named.
    pub fn at(t: Option<Tamper>, node: usize) -> Option<Tamper> {
        t.filter(|t| match *t {
            Tamper::Proof { node: n }
            | Tamper::Element { node: n }
            | Tamper::Tag { node: n, .. }
            | Tamper::Share { node: n, .. } => n == node,
            Tamper::Opening { .. } => node == crate::NODES - 1,
        })
    }
}

impl fmt::Display for Tamper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Tamper::Proof { node } => write!(f, "proof:{node}"),
            Tamper::Element { node } => write!(f, "element:{node}"),
            Tamper::Tag { node, slot } => write!(f, "tag:{node}:{slot}"),
            Tamper::Share { node, slot } => write!(f, "share:{node}:{slot}"),
            Tamper::Opening { slot } => write!(f, "opening:{slot}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_print_and_are_range_checked() {
        for s in ["proof:0", "element:1", "tag:2:5", "share:0:3", "opening:4"] {
            assert_eq!(Tamper::parse(s).unwrap().to_string(), s);
        }
        assert!(Tamper::parse("tag:1").is_err());
        assert!(Tamper::parse("bogus:1").is_err());
        assert!(Tamper::parse("tag:x:1").is_err());
        assert!(Tamper::parse("tag:3:1").unwrap().check(10).is_err());
        assert!(Tamper::parse("tag:1:10").unwrap().check(10).is_err());
        assert!(Tamper::parse("tag:1:9").unwrap().check(10).is_ok());
    }
}
