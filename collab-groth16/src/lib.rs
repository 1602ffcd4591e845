//! Collaborative Groth16: `m` parties, each holding an additive share of the witness, jointly
//! compute one ordinary ark-groth16 proof (BN254 in the binary; the protocol is generic over the
//! pairing), which the ordinary verifier accepts. No party learns the witness.
//!
//! The protocol follows the structure of collaborative zk-SNARKs over secret shares (Ozdemir and
//! Boneh, USENIX Security 2022): Groth16's prover is almost entirely linear in the witness, so
//! parties run it on their shares and only meet where two secret values are multiplied.
//!
//! | step (report label) | what | communication |
//! | --- | --- | --- |
//! | `randomisers` | each party picks its part of `r` and `s`; malicious: authenticates them with the dealer's input masks, commits to its coin for the MAC check | malicious: 1 round |
//! | `qap_eval` | `<A_i, w>`, `<B_i, w>`, `<C_i, w>` per constraint on the party's share | none |
//! | `fft` | IFFT and coset FFT of the three vectors (the MACs' too) | none |
//! | `query_msm` | shares of `A`, `B` (G1 and G2) from the proving key's queries | none |
//! | `open_ab` | opens the Beaver-masked coset evaluations and `r s`'s masks, and `A`, `B` | 1 round |
//! | `mac_check` | malicious: SPDZ MAC check of everything opened so far | 3 rounds |
//! | `beaver` | shares of the `N` coset products `a b` and of `r s` | none |
//! | `quotient` | `h = (a b - c) / Z` on the coset, coset IFFT | none |
//! | `c_msm` | shares of the `h` and `l` query sums | none |
//! | `open_c` | shares of `C = s A + r B - r s delta + ...`, opened | 1 round |
//!
//! Layers, bottom up:
//!
//! - primitives: [`share`] (additive shares, seeded expansion), [`codec`] (message bodies),
//!   [`identity`] (each process's certificate, and the introductions that pin them), [`net`]
//!   (the mutually authenticated TLS links and the parties' mesh, with byte and round
//!   counters);
//! - the proof system's linear algebra: [`qap`] (R1CS to QAP), [`groth16`] (the query MSMs),
//!   [`plain`] (the single-party reference built from the same pieces);
//! - the protocol: [`dealer`] (preprocessing), [`party`] (the online phase), [`maccheck`]
//!   (commitments, coin tossing and the MAC check of the malicious variant), [`tamper`]
//!   (deliberate faults for the negative tests);
//! - measurement and processes: [`report`] (figures and report.json), [`control`] (the
//!   messages between the coordinator and the parties), [`launch`] (the coordinator, which
//!   places every process in the run's emulated network) and [`process`] (the party process).
//!
//! # Why opening `A` and `B` is safe
//!
//! `A = alpha + sum w_i a_i + r delta` with `r` uniform and unknown to any coalition of fewer
//! than `m` parties (each party adds its own uniform part), and `delta` a generator: `A` is a
//! uniformly random group element, independent of the witness. `B` in G2 is the same with `s`;
//! `B` in G1 has the same discrete logarithm as `B` in G2 (the queries are the same scalars in
//! both groups), so it is a function of the proof's `B` and tells nothing more. The openings are
//! therefore part of an "augmented proof" `(A, B_1, B_2, C)` that Groth16's zero-knowledge
//! simulator can produce too (it picks the discrete logarithms of `A` and `B`), so they reveal
//! nothing beyond the statement. Individual parties' shares are also uniform: party `j`'s share
//! of `A` contains `r_j delta`, of `B` (both groups, one scalar) `s_j delta`, of `C` a fresh
//! Beaver-triple share `-z_j delta`, of the masked coset values the triple shares `x_j`, `y_j`.
//! The products and the quotient `h` are never opened.

#![warn(missing_docs)]

pub mod codec;
pub mod control;
pub mod dealer;
pub mod groth16;
pub mod identity;
pub mod launch;
pub mod maccheck;
pub mod net;
pub mod party;
pub mod plain;
pub mod process;
pub mod qap;
pub mod report;
pub mod share;
pub mod tamper;

use serde::{Deserialize, Serialize};

/// The security model a run is made under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Semi-honest (honest-but-curious) parties; any `m - 1` of them may pool their views.
    SemiHonest,
    /// Malicious parties, any `m - 1` of them, with abort: SPDZ-style MACs on every opened value.
    Malicious,
}

impl Variant {
    /// The variant's name on the command line and in the report (`semi-honest`, `malicious`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::SemiHonest => "semi-honest",
            Variant::Malicious => "malicious",
        }
    }

    /// The security model, in the words the report uses.
    pub fn security_model(self) -> &'static str {
        match self {
            Variant::SemiHonest => {
                "semi-honest: parties follow the protocol; any coalition of up to m-1 parties \
                 learns nothing about the witness beyond the proof. A deviation yields a proof \
                 every party rejects (the Groth16 verifier), never an accepted false proof. \
                 Trusted dealer (deals honestly, does not collude). Channels are TLS 1.3, \
                 mutually authenticated with pinned certificates."
            }
            Variant::Malicious => {
                "malicious with abort: up to m-1 parties may deviate arbitrarily. The witness \
                 shares, the Beaver triples' x and y, the randomisers and every opened value \
                 before C carry a SPDZ-style MAC under a shared 254-bit key, checked (with \
                 hash commitments and coin-tossed challenges) before C is opened; C, the Beaver \
                 products and h carry no MAC, and the output proof is checked by every party \
                 with the Groth16 verifier. A deviation makes the run abort, or yields a proof \
                 every party rejects; never an accepted false proof. Trusted dealer (deals \
                 honestly, does not collude); no fairness (a party may abort after seeing the \
                 proof). Channels are TLS 1.3, mutually authenticated with pinned \
                 certificates."
            }
        }
    }

    /// The variant of a command-line name; an unknown name is an [`Error::Invalid`] that lists
    /// the two known ones.
    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "semi-honest" => Ok(Variant::SemiHonest),
            "malicious" => Ok(Variant::Malicious),
            _ => Err(Error::Invalid(format!(
                "unknown variant {s:?}: expected semi-honest or malicious"
            ))),
        }
    }

    fn code(self) -> u8 {
        match self {
            Variant::SemiHonest => 0,
            Variant::Malicious => 1,
        }
    }

    fn from_code(c: u8) -> Result<Self, Error> {
        match c {
            0 => Ok(Variant::SemiHonest),
            1 => Ok(Variant::Malicious),
            _ => Err(Error::Decode(format!("unknown variant code {c}"))),
        }
    }
}

/// Why a run, a party or a message failed; each kind maps to how the program exits and what the
/// report says.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Inputs that do not fit (files, keys, sizes); the CLI's exit code 2.
    #[error(transparent)]
    Input(#[from] zksnark_prover::Error),
    /// A request that cannot be carried out as given (a setting out of range, a peer that did
    /// not connect in time, a failed dial), with the reason.
    #[error("{0}")]
    Invalid(String),
    /// A socket or TLS error on a link (a peer that died shows up here, as the end of its
    /// connection).
    #[error("network: {0}")]
    Net(#[from] std::io::Error),
    /// A message that does not parse: a bug or a deviating party.
    #[error("malformed message: {0}")]
    Decode(String),
    /// The malicious variant detected a deviation and aborted before opening C.
    #[error("abort: {0}")]
    Abort(String),
    /// The opened proof does not verify.
    #[error("the jointly computed proof does not verify")]
    Rejected,
}
