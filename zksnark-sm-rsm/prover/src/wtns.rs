//! circom's `.wtns` format (versions 1 and 2): header (section 1: field size, prime, count) and
//! the values (section 2), each a canonical little-endian field element.

use std::path::Path;

use ark_ff::PrimeField;

use crate::binfile::{check_field, Container};
use crate::Error;

/// Reads the raw witness values in file order; see [`crate::R1cs::assignment`] for wire order.
pub fn read_wtns<F: PrimeField>(path: &Path) -> Result<Vec<F>, Error> {
    let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse_wtns(path, &data)
}

/// The witness values of `.wtns` bytes in file order (`path` names it in errors).
pub fn parse_wtns<F: PrimeField>(path: &Path, data: &[u8]) -> Result<Vec<F>, Error> {
    let file = Container::parse(path, data, "witness (.wtns)", b"wtns", &[1, 2])?;
    let mut h = file.section(1, "header")?;
    check_field::<F>(&mut h)?;
    let n = h.u32("the number of witness values")? as usize;
    h.finish()?;
    if n == 0 {
        return Err(Error::format(path, "the witness has no values"));
    }
    let mut v = file.section(2, "witness values")?;
    let mut values = Vec::with_capacity(n.min(v.remaining() / 32));
    for i in 0..n {
        values.push(
            v.field("a witness value")
                .map_err(|e| e.within(|| format!("value {i} of {n}")))?,
        );
    }
    v.finish()?;
    Ok(values)
}
