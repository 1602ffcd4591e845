//! circom's `.r1cs` format (version 1): header (section 1), constraints (section 2) and the
//! wire-to-label map (section 3). Wire 0 is the constant 1, then the public outputs, the public
//! inputs, and everything private.

use std::path::Path;

use ark_ff::PrimeField;
use rayon::prelude::*;

use crate::binfile::{check_field, Container};
use crate::Error;

/// A sparse linear combination: (wire index, coefficient).
pub type LinComb<F> = Vec<(u32, F)>;

/// One rank-1 constraint <A,w> * <B,w> = <C,w>.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint<F> {
    /// The left factor's linear combination.
    pub a: LinComb<F>,
    /// The right factor's linear combination.
    pub b: LinComb<F>,
    /// The product's linear combination.
    pub c: LinComb<F>,
}

/// A circom-format constraint system: its header's counts and its constraints.
#[derive(Clone, Debug, PartialEq)]
pub struct R1cs<F> {
    /// The wires, the constant wire 0 included.
    pub n_wires: usize,
    /// The public outputs (wires 1 onwards).
    pub n_pub_out: usize,
    /// The public inputs, after the outputs.
    pub n_pub_in: usize,
    /// The private inputs, after the public ones.
    pub n_prv_in: usize,
    /// The labels (signals) of the source circuit, at least the wires.
    pub n_labels: u64,
    /// The constraints in file order.
    pub constraints: Vec<Constraint<F>>,
    /// Label of each wire; `None` when the file has no map (then wire i is label i).
    pub wire_to_label: Option<Vec<u64>>,
}

const HEADER: u32 = 1;
const CONSTRAINTS: u32 = 2;
const WIRE_MAP: u32 = 3;

impl<F: PrimeField> R1cs<F> {
    /// Public field inputs of the Groth16 statement: outputs then inputs (wires 1..=n).
    pub fn num_public(&self) -> usize {
        self.n_pub_out + self.n_pub_in
    }

    /// Reads and checks an `.r1cs` file; errors name the file and the place.
    pub fn read(path: &Path) -> Result<Self, Error> {
        let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Self::parse(path, &data)
    }

    /// Parses `data`; `path` is only used to name the file in errors.
    pub fn parse(path: &Path, data: &[u8]) -> Result<Self, Error> {
        let file = Container::parse(path, data, "R1CS", b"r1cs", &[1])?;

        let mut h = file.section(HEADER, "header")?;
        check_field::<F>(&mut h)?;
        let n_wires = h.u32("the number of wires")? as usize;
        let n_pub_out = h.u32("the number of public outputs")? as usize;
        let n_pub_in = h.u32("the number of public inputs")? as usize;
        let n_prv_in = h.u32("the number of private inputs")? as usize;
        let n_labels = h.u64("the number of labels")?;
        let m = h.u32("the number of constraints")? as usize;
        if n_wires < 1 + n_pub_out + n_pub_in + n_prv_in {
            return Err(h.error(format_args!(
                "{n_wires} wires cannot hold the constant, {n_pub_out} outputs, {n_pub_in} \
                 public and {n_prv_in} private inputs"
            )));
        }
        if n_labels < n_wires as u64 {
            return Err(h.error(format_args!("{n_labels} labels for {n_wires} wires")));
        }
        h.finish()?;

        let mut cs = file.section(CONSTRAINTS, "constraints")?;
        // The smallest constraint takes 12 bytes; do not trust a huge count from a short file.
        let mut constraints = Vec::with_capacity(m.min(cs.remaining() / 12));
        for i in 0..m {
            let constraint = (|| {
                Ok::<_, Error>(Constraint {
                    a: read_lc(&mut cs, n_wires)?,
                    b: read_lc(&mut cs, n_wires)?,
                    c: read_lc(&mut cs, n_wires)?,
                })
            })()
            .map_err(|e| e.within(|| format!("constraint {i} of {m}")))?;
            constraints.push(constraint);
        }
        cs.finish()?;

        let wire_to_label = match file.optional_section(WIRE_MAP, "wire-to-label map")? {
            None => None,
            Some(mut map) => {
                let mut labels = Vec::with_capacity(n_wires.min(map.remaining() / 8));
                for _ in 0..n_wires {
                    let label = map.u64("a wire's label")?;
                    if label >= n_labels {
                        return Err(map.error(format_args!(
                            "label {label} out of range (the header declares {n_labels} labels)"
                        )));
                    }
                    labels.push(label);
                }
                map.finish()?;
                Some(labels)
            }
        };

        Ok(R1cs {
            n_wires,
            n_pub_out,
            n_pub_in,
            n_prv_in,
            n_labels,
            constraints,
            wire_to_label,
        })
    }

    /// Arranges `.wtns` values in wire order. circom-style witnesses hold one value per wire;
    /// a witness with one value per label is mapped through the wire-to-label map.
    pub fn assignment(&self, values: Vec<F>, wtns: &Path) -> Result<Vec<F>, Error> {
        let assignment = if values.len() == self.n_wires {
            values
        } else if let (Some(map), true) =
            (&self.wire_to_label, values.len() as u64 == self.n_labels)
        {
            map.iter().map(|&label| values[label as usize]).collect()
        } else {
            return Err(Error::format(
                wtns,
                format!(
                    "{} witness values, but the R1CS has {} wires and {} labels: the witness \
                     does not belong to this circuit",
                    values.len(),
                    self.n_wires,
                    self.n_labels
                ),
            ));
        };
        if assignment[0] != F::one() {
            return Err(Error::format(
                wtns,
                format!("wire 0 must be the constant 1, found {}", assignment[0]),
            ));
        }
        Ok(assignment)
    }

    /// Index of the first constraint that `w` (in wire order) violates, if any.
    pub fn first_unsatisfied(&self, w: &[F]) -> Option<usize> {
        assert_eq!(
            w.len(),
            self.n_wires,
            "assignment length must equal the wire count"
        );
        self.constraints
            .par_iter()
            .position_first(|c| eval(&c.a, w) * eval(&c.b, w) != eval(&c.c, w))
    }

    /// The public inputs of the Groth16 statement for a full assignment.
    pub fn public_inputs(&self, w: &[F]) -> Vec<F> {
        w[1..=self.num_public()].to_vec()
    }
}

fn eval<F: PrimeField>(lc: &LinComb<F>, w: &[F]) -> F {
    lc.iter().map(|&(i, c)| w[i as usize] * c).sum()
}

fn read_lc<F: PrimeField>(
    cs: &mut crate::binfile::Cursor<'_>,
    n_wires: usize,
) -> Result<LinComb<F>, Error> {
    let n = cs.u32("the term count of a linear combination")? as usize;
    let mut lc = Vec::with_capacity(n.min(cs.remaining() / 36));
    for _ in 0..n {
        let wire = cs.u32("a wire index")?;
        if wire as usize >= n_wires {
            return Err(cs.error(format_args!(
                "wire index {wire} out of range (the header declares {n_wires} wires)"
            )));
        }
        lc.push((wire, cs.field("a coefficient")?));
    }
    Ok(lc)
}
