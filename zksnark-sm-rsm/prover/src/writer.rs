//! Writers for the circom formats, used by the tests and the synthetic-circuit example to make
//! inputs byte-compatible with what zokrates-js exports (sections 2, 1, 3 in that order).

use ark_ff::{BigInteger, PrimeField};

use crate::binfile::field_bytes;
use crate::r1cs::{LinComb, R1cs};

fn section(out: &mut Vec<u8>, ty: u32, body: &[u8]) {
    out.extend_from_slice(&ty.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(body);
}

fn field<F: PrimeField>(out: &mut Vec<u8>, x: &F) {
    let mut bytes = x.into_bigint().to_bytes_le();
    bytes.resize(field_bytes::<F>(), 0);
    out.extend_from_slice(&bytes);
}

fn field_header<F: PrimeField>(out: &mut Vec<u8>) {
    out.extend_from_slice(&(field_bytes::<F>() as u32).to_le_bytes());
    let mut prime = F::MODULUS.to_bytes_le();
    prime.resize(field_bytes::<F>(), 0);
    out.extend_from_slice(&prime);
}

fn lc<F: PrimeField>(out: &mut Vec<u8>, lc: &LinComb<F>) {
    out.extend_from_slice(&(lc.len() as u32).to_le_bytes());
    for (wire, coeff) in lc {
        out.extend_from_slice(&wire.to_le_bytes());
        field(out, coeff);
    }
}

/// The `.r1cs` bytes of `r1cs`; the wire map is written only if `r1cs` has one.
pub fn r1cs_bytes<F: PrimeField>(r1cs: &R1cs<F>) -> Vec<u8> {
    let mut constraints = Vec::new();
    for c in &r1cs.constraints {
        lc(&mut constraints, &c.a);
        lc(&mut constraints, &c.b);
        lc(&mut constraints, &c.c);
    }
    let mut header = Vec::new();
    field_header::<F>(&mut header);
    for n in [r1cs.n_wires, r1cs.n_pub_out, r1cs.n_pub_in, r1cs.n_prv_in] {
        header.extend_from_slice(&(n as u32).to_le_bytes());
    }
    header.extend_from_slice(&r1cs.n_labels.to_le_bytes());
    header.extend_from_slice(&(r1cs.constraints.len() as u32).to_le_bytes());

    let mut out = b"r1cs".to_vec();
    out.extend_from_slice(&1u32.to_le_bytes());
    let n_sections: u32 = if r1cs.wire_to_label.is_some() { 3 } else { 2 };
    out.extend_from_slice(&n_sections.to_le_bytes());
    section(&mut out, 2, &constraints);
    section(&mut out, 1, &header);
    if let Some(map) = &r1cs.wire_to_label {
        let body: Vec<u8> = map.iter().flat_map(|l| l.to_le_bytes()).collect();
        section(&mut out, 3, &body);
    }
    out
}

/// The `.wtns` (version 2) bytes of `values`.
pub fn wtns_bytes<F: PrimeField>(values: &[F]) -> Vec<u8> {
    let mut header = Vec::new();
    field_header::<F>(&mut header);
    header.extend_from_slice(&(values.len() as u32).to_le_bytes());
    let mut body = Vec::with_capacity(values.len() * field_bytes::<F>());
    for v in values {
        field(&mut body, v);
    }
    let mut out = b"wtns".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    section(&mut out, 1, &header);
    section(&mut out, 2, &body);
    out
}
