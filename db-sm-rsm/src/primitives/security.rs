//! The security level: the length of every challenge and batching vector, and the statistical
//! slack of every mask, as one named setting (`--security 128` or `--security paper`).
//!
//! | parameter | `128` (default) | `paper` (upstream's) | where |
//! | --- | --- | --- | --- |
//! | κ_c, integer challenges | 128 | 80 | Paillier PoK of plaintext, decryption-share proof, Paillier shuffle |
//! | κ_e, challenge and batching vectors | 128 | 80 | e⃗ of the shuffle and permutation proofs, every batching δ⃗ |
//! | κ_r, statistical slack | 80 | 20 | every mask of the Paillier-side proofs, FO randomness |
//! | PoK slack | 80 | 40 (2κ_r) | masks of the Paillier PoK of plaintext |
//!
//! A mask hides a value x < 2^b when it is uniform on b + κ_r bits (plus the challenge's bits
//! when it masks chal·x): the response then differs from a uniform one by at most 2^{−κ_r} in
//! statistical distance, so with κ_r = 80 a verifier learns nothing about a permutation or a key
//! share from the responses' sizes, where 20 bits leaked a few per cent at n = 10⁴. Challenges
//! and batching vectors of κ bits make a false statement or a bad batch pass with probability
//! about 2^{−κ}. Sigma proofs over the pairing groups use full-size Zq challenges and uniform Zq
//! masks in both settings.

use serde_json::{json, Value};

/// The two settings, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SecurityLevel {
    /// 128-bit challenges and batching vectors, 80-bit statistical slack.
    #[value(name = "128")]
    Bits128,
    /// Upstream's lengths (80-bit challenges, 20-bit slack), for a like-for-like comparison.
    #[value(name = "paper")]
    Paper,
}

impl SecurityLevel {
    /// The command-line name: `128` or `paper`.
    pub fn name(self) -> &'static str {
        match self {
            SecurityLevel::Bits128 => "128",
            SecurityLevel::Paper => "paper",
        }
    }

    /// The lengths of this setting.
    pub fn params(self) -> Security {
        match self {
            SecurityLevel::Bits128 => Security::BITS128,
            SecurityLevel::Paper => Security::PAPER,
        }
    }
}

/// The lengths every proof reads (see the module table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Security {
    /// Which setting these are.
    pub level: SecurityLevel,
    /// κ_c: bits of the integer Fiat-Shamir challenges.
    pub challenge_bits: u32,
    /// κ_e: bits of each entry of a challenge vector e⃗ or a batching vector δ⃗.
    pub batch_bits: u32,
    /// κ_r: statistical slack of every mask.
    pub slack_bits: u32,
    /// Slack of the masks of the Paillier proofs of knowledge of plaintext.
    pub pok_slack_bits: u32,
}

impl Security {
    /// The default: 128-bit challenges and vectors, 80-bit slack everywhere.
    pub const BITS128: Security = Security {
        level: SecurityLevel::Bits128,
        challenge_bits: 128,
        batch_bits: 128,
        slack_bits: 80,
        pok_slack_bits: 80,
    };

    /// Upstream's lengths: κ_c = κ_e = 80, κ_r = 20, and PoK masks with 2κ_r of slack.
    pub const PAPER: Security = Security {
        level: SecurityLevel::Paper,
        challenge_bits: 80,
        batch_bits: 80,
        slack_bits: 20,
        pok_slack_bits: 40,
    };

    /// The JSON report's `security` block.
    pub fn to_json(self) -> Value {
        json!({
            "level": self.level.name(),
            "challenge_bits": self.challenge_bits,
            "batch_bits": self.batch_bits,
            "slack_bits": self.slack_bits,
            "pok_slack_bits": self.pok_slack_bits,
        })
    }
}

impl Default for Security {
    fn default() -> Self {
        Security::BITS128
    }
}

impl crate::primitives::wire::Wire for Security {
    fn put(&self, out: &mut Vec<u8>) {
        // The setting's name: the lengths follow from it.
        self.level.name().to_string().put(out)
    }
    fn get(inp: &mut &[u8]) -> crate::Result<Self> {
        match String::get(inp)?.as_str() {
            "128" => Ok(Security::BITS128),
            "paper" => Ok(Security::PAPER),
            other => Err(crate::Error::Input(format!(
                "malformed message: security setting {other:?}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::fo::FoKey;
    use crate::primitives::paillier::PaillierKey;
    use crate::primitives::thpaillier::ThresholdKey;
    use crate::proofs::paillier_shuffle::{Lengths, MAX_ENTRIES};
    use ark_ff::PrimeField;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// (what, mask bits, bits of the largest value it masks) for every mask of the Paillier-side
    /// proofs, with the run's key sizes (2050-bit threshold N, 2048-bit mixer N) and curve.
    fn masks(sec: Security) -> Vec<(&'static str, u32, u32)> {
        let mut rng = ChaCha20Rng::from_seed([5; 32]);
        let mut th = ThresholdKey::fixed_test_key(&mut rng, 2).pk;
        th.security = sec;
        let mut mixer = PaillierKey::fixed_test_key(&mut rng, 0).pk;
        mixer.security = sec;
        let fo = FoKey::new(&mut rng, &th.n, 2, sec.slack_bits);
        let len = Lengths::new::<ark_bn254::Bn254>(&th, &fo);
        let (c, e) = (sec.challenge_bits, sec.batch_bits);
        let q_bits = ark_bn254::Fr::MODULUS_BIT_SIZE;
        let log_n = MAX_ENTRIES.trailing_zeros();
        // A share d_k of the threshold secret is below N·M < N².
        let d_bits = th.n2.significant_bits();
        vec![
            (
                "threshold PoK of plaintext (chal·m, m < N)",
                th.pok_mask_bits(),
                th.n.significant_bits() + c,
            ),
            (
                "mixer PoK of plaintext (chal·m, m < N)",
                mixer.pok_mask_bits(),
                mixer.n.significant_bits() + c,
            ),
            (
                "decryption-share proof (chal·d_k)",
                th.share_mask_bits(),
                d_bits + c,
            ),
            (
                "FO commitment randomness (y, uniform below N)",
                fo.randomness_bits(),
                th.n.significant_bits(),
            ),
            ("Paillier shuffle e′ (chal·e′)", len.e, e + c),
            ("Paillier shuffle t1, t2 (chal·t, t < q)", len.t, q_bits + c),
            (
                "Paillier shuffle FO randomness (chal·y)",
                len.y,
                fo.randomness_bits() + c,
            ),
            (
                "Paillier shuffle r = Σ ρ_i e_i (chal·r)",
                len.r,
                th.r_bits() + e + log_n + c,
            ),
            // DB-RSM hides bc < q in bc + q·U, U uniform in [0, q].
            ("DB-RSM blinding offset (bc + q·U)", 2 * q_bits - 1, q_bits),
        ]
    }

    /// Every mask exceeds the value it hides by at least κ_r = 80 bits at the default level (the
    /// PoK masks by their own 80 bits of slack), and by upstream's 20 at the paper level.
    #[test]
    fn every_mask_has_80_bits_of_statistical_slack() {
        for (what, mask, value) in masks(Security::BITS128) {
            assert!(
                mask >= value + 80,
                "{what}: mask {mask} bits over a {value}-bit value"
            );
        }
        let paper: Vec<u32> = masks(Security::PAPER)
            .iter()
            .map(|(_, m, v)| m - v)
            .collect();
        assert!(paper.iter().all(|s| *s >= 20), "{paper:?}");
        assert!(
            paper.iter().any(|s| *s < 80),
            "paper security keeps upstream's short slack"
        );
    }

    #[test]
    fn levels_have_their_lengths() {
        assert_eq!(SecurityLevel::Bits128.params(), Security::default());
        let s = Security::BITS128;
        assert_eq!(
            (s.challenge_bits, s.batch_bits, s.slack_bits),
            (128, 128, 80)
        );
        let p = SecurityLevel::Paper.params();
        assert_eq!((p.challenge_bits, p.batch_bits, p.slack_bits), (80, 80, 20));
        assert_eq!(p.to_json()["level"], "paper");
    }
}
