//! The pairing-based vector commitment of Libert and Yung (TCC 2010), in the form Algorand's
//! veccom and Pointproofs use: a commitment to n values and every proof are one G1 point
//! (48 bytes), whatever n is.
//!
//! ## The scheme (positions i, j in 1..=n; the API counts from 0)
//!
//! * **Set-up** ([`params`]). Draw a secret a ∈ F_r. Prover parameters g1^(a^k) for k in
//!   [1, 2n] except n+1; verifier parameters g2^(a^k) for k in [1, n] and
//!   T = gt^(a^(n+1)) = e(g1^a, g2^(a^n)). The trapdoor a is wiped when set-up returns: whoever
//!   knew it could open a commitment to any value (a deployment would run a multi-party
//!   ceremony instead of one dealer).
//! * **Values** are hashed to scalars m_i = H(value_i) ([`crate::curve::hash_to_scalar`]).
//! * **Commit** ([`commit`]): C = Σ_i m_i·g1^(a^i), one MSM of size n.
//! * **Prove** ([`prove`]) position i: π_i = Σ_(j≠i) m_j·g1^(a^(n+1−i+j)), one MSM of size
//!   n−1 (the exponents n+1−i+j cover [n+2−i, 2n+1−i] without n+1, so the missing parameter is
//!   never needed).
//! * **Verify** ([`verify`]): e(C, g2^(a^(n+1−i))) = e(π_i, g2)·T^(m_i). Indeed the left side is
//!   gt^(Σ_j m_j·a^(n+1−i+j)): the j = i term is T^(m_i), the rest is e(π_i, g2). We check
//!   e(C, g2^(a^(n+1−i)))·e(π_i, −g2) = T^(m_i) with one two-pair Miller loop, one final
//!   exponentiation and T^(m_i) from a table ([`crate::curve::GtTable`]).
//! * **Updates** ([`update`]): changing value i from m to m' adds δ = m' − m times one
//!   parameter: C' = C + δ·g1^(a^i), and for a proof of position j ≠ i,
//!   π_j' = π_j + δ·g1^(a^(n+1−j+i)) (π_i itself does not depend on m_i).
//! * **Batches** ([`batch`]): for a set S of positions of one commitment, with challenges
//!   t_i = H(C, S, m_S, i) of 128 bits, the combined proof π_S = Σ_(i∈S) t_i·π_i (48 bytes)
//!   satisfies e(C, Σ_(i∈S) t_i·g2^(a^(n+1−i))) = e(π_S, g2)·T^(Σ t_i·m_i). It is made directly
//!   from the values (one MSM over at most 2n−1 parameters) or by aggregating single proofs.
//!
//! ## Speed
//!
//! All prover MSMs run on a table of the parameters' shifted multiples built once at set-up
//! ([`crate::curve::msm::FixedBaseTable`]); updates use the same table for their single
//! multiplication. The verifier holds the table of T. blst provides the field arithmetic, the
//! Miller loop and the final exponentiation.

/// A public value of the scheme that is one G1 point (a commitment, a proof: `$what`), with its
/// 48-byte compressed encoding, checked on the way in.
macro_rules! g1_value {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name(pub(crate) G1Affine);

        impl $name {
            #[doc = concat!("Bytes of an encoded ", $what, ".")]
            pub const BYTES: usize = G1_COMPRESSED_BYTES;

            /// The 48-byte compressed encoding.
            pub fn to_bytes(&self) -> [u8; G1_COMPRESSED_BYTES] {
                self.0.to_bytes()
            }

            #[doc = concat!("Decodes a ", $what, ", rejecting bytes that are not a point of G1.")]
            pub fn from_bytes(bytes: &[u8; G1_COMPRESSED_BYTES]) -> Result<$name, Error> {
                G1Affine::from_bytes(bytes)
                    .map($name)
                    .ok_or(Error::Malformed(concat!($what, " is not a point of G1")))
            }

            /// The point.
            pub fn point(&self) -> G1Affine {
                self.0
            }
        }
    };
}

pub mod batch;
pub mod commit;
pub mod params;
pub mod prove;
pub mod update;
pub mod verify;

pub use batch::{aggregate, prove_batch, verify_batch};
pub use commit::{commit, commit_scalars, hash_values, Commitment};
pub use params::{setup, ProverParams, VerifierParams};
pub use prove::{prove, prove_scalars, Proof};
pub use update::{commit_update, proof_update};
pub use verify::{verify, verify_scalar};
