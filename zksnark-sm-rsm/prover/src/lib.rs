//! Native Groth16 (ark-groth16, BN254) for constraint systems exported by zokrates-js in circom's
//! binary formats: read `.r1cs` and `.wtns`, replay the R1CS into ark-relations, then set up,
//! prove and verify. The statement is never re-implemented, so the native prover proves the very
//! R1CS that the WebAssembly prover proves.

#![warn(missing_docs)]

mod binfile;
pub mod circuit;
pub mod cli;
pub mod error;
pub mod measure;
pub mod ptau;
pub mod r1cs;
pub mod snark;
pub mod snarkjs;
pub mod synthetic;
pub mod writer;
pub mod wtns;

pub use circuit::R1csCircuit;
pub use error::Error;
pub use r1cs::{Constraint, LinComb, R1cs};
pub use wtns::{parse_wtns, read_wtns};

/// Versions of the proving stack, resolved from Cargo.lock at build time.
pub fn versions() -> Vec<(&'static str, &'static str)> {
    vec![
        ("zksnark-prover", env!("CARGO_PKG_VERSION")),
        ("ark-groth16", env!("LOCKED_ARK_GROTH16")),
        ("ark-bn254", env!("LOCKED_ARK_BN254")),
        ("ark-relations", env!("LOCKED_ARK_RELATIONS")),
        ("ark-ec", env!("LOCKED_ARK_EC")),
    ]
}
