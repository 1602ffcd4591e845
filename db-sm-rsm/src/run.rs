//! One full run of the protocol in report order (spec §2): preprocessing, input preparation,
//! checking inputs, mixing, DB-SM, DB-RSM and the size lines, all recorded in a [`Report`].
//!
//! Every party is its own struct with its own secrets and its own CSPRNG stream
//! ([`crate::setup::Mixer`], [`crate::setup::Verifier`], the senders in [`crate::inputs`]);
//! a step of party P only reads P's struct and [`crate::setup::Public`] data. All parties run
//! sequentially in one process, as upstream (B19), and each step is timed under its party's tag.

use ark_ec::pairing::Pairing;
use clap::ValueEnum;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::path::PathBuf;

use crate::keys::{KeyMaterial, KeyOptions};
use crate::report::{Report, Totals};
use crate::security::SecurityLevel;
use crate::tamper::Tamper;
use crate::{dbrsm, dbsm, inputs, mix, setup, sizes, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Curve {
    #[value(name = "bn254")]
    Bn254,
    #[value(name = "bls12-381")]
    Bls12_381,
}

impl Curve {
    pub fn name(self) -> &'static str {
        match self {
            Curve::Bn254 => "bn254",
            Curve::Bls12_381 => "bls12-381",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Fast,
    Paper,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Fast => "fast",
            Mode::Paper => "paper",
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    pub n: usize,
    pub m: usize,
    pub curve: Curve,
    pub mode: Mode,
    /// Challenge, batching and slack lengths of every proof.
    pub security: SecurityLevel,
    pub seed: Option<u64>,
    pub tamper: Option<Tamper>,
    /// Use the checked-in test keys instead of generating keys (insecure; the report says so).
    pub test_keys: bool,
    /// Where generated keys of seeded runs are kept ([`crate::keys`]).
    pub key_cache: Option<PathBuf>,
}

/// What a run returns besides its report: the fixes list and the keys block of the JSON.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// The upstream defects this implementation fixes ([`fixes`]).
    pub fixes: Vec<String>,
    /// Where the keys came from and their sizes ([`crate::keys::KeyMaterial::to_json`]).
    pub keys: serde_json::Value,
}

impl Config {
    /// How this run obtains its keys.
    pub fn key_options(&self) -> KeyOptions {
        KeyOptions {
            test_keys: self.test_keys,
            cache: self.key_cache.clone(),
            seed: self.seed,
        }
    }

    /// True iff `t` is the requested tamper.
    pub fn tampers(&self, t: Tamper) -> bool {
        self.tamper == Some(t)
    }
}

/// The upstream bugs and shortcuts this implementation fixes or departs from (spec §6), for the
/// JSON's `fixes` list.
pub fn fixes() -> Vec<String> {
    [
        "B1: status_pk_bl and status_pk_blrev are the AND over every mixer's verifications",
        "B2: status_forward/reverse_set_membership AND every sub-status of their section",
        "B3 (partly): every mixer runs its checks even after another mixer's check failed",
        "B4: the per-mixer Paillier fixed-base table is built and used for the senders' share \
         encryptions",
        "B5: batched decryption-share proofs use n+1 deltas, so ciphertext 0 is covered",
        "B6: the Paillier decryption-share proof mask is long enough to hide d_k",
        "B7: Paillier PoK commitments are reduced mod N^2 (and sized so)",
        "B9: Paillier shuffle responses are integers (no wrap-around failures)",
        "B14: per-party totals match an explicit party tag, not a label prefix",
        "F1/F2: every Fiat-Shamir challenge hashes the whole statement",
        "S6: challenge vectors e and batching vectors delta come from Fiat-Shamir",
        "CSPRNG: ChaCha20 (seeded from the OS, or --seed) instead of Mersenne Twister",
        "S2: Paillier keys are generated for every run (one key per mixer), outside the \
         protocol's timers and timed on their own line; fixed test keys only with --test-keys",
        "A2: each mixer's Paillier primes P = 2pp'+1, Q = 2qq'+1 have p', q' prime (no elements \
         of small odd order); a share ciphertext that does not decrypt and a failed share \
         combination are False statuses, not zero values",
        "A1: DPK_BB rejects a blinded signature equal to the identity (blinding shares summing \
         to 0), DPK_BBS+ an identity S~ or z1; honest mixers draw nonzero blindings",
        "A3: every non-OS random generator is seeded with 32 bytes",
        "A4: every mask of the Paillier-side proofs exceeds the value it hides by at least \
         80 bits (--security 128: kappa_r = 80)",
        "A5: 128-bit challenges and batching vectors (--security 128), uniform (no forced top \
         bit); both Paillier shuffle sub-proofs open one FO commitment to (t1, t2)",
        "A6: m < 2 is refused (with one mixer no proof is checked by another)",
        "A7: input proofs bind the run identifier, the sender and the role of the proven value; \
         duplicate input ciphertexts and commitments are rejected",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

impl Config {
    /// Checks what can be checked before any work: n >= 1, m >= 2, and a tamper that this n
    /// allows.
    pub fn validate(&self) -> Result<()> {
        if self.n == 0 {
            return Err(crate::Error::Input("n must be at least 1".into()));
        }
        if self.m < 2 {
            // With one mixer every "each mixer verifies the others' proofs" step checks nothing,
            // so a run would print True for statuses nobody checked.
            return Err(crate::Error::Input(format!(
                "m = {} mix-servers: at least 2 are needed, so that every proof is checked by \
                 another mixer",
                self.m
            )));
        }
        if self.tampers(Tamper::Replay) && self.n < 2 {
            return Err(crate::Error::Input(
                "--tamper replay needs n >= 2 (sender 1 replays sender 0's input)".into(),
            ));
        }
        crate::keys::check_options(&self.key_options(), self.m)
    }
}

/// Runs everything on the configured curve; returns the fixes list and the keys block for the
/// JSON.
pub fn run(cfg: &Config, report: &mut Report) -> Result<RunInfo> {
    cfg.validate()?;
    let keys = match cfg.curve {
        Curve::Bn254 => run_on::<ark_bn254::Bn254>(cfg, report)?,
        Curve::Bls12_381 => run_on::<ark_bls12_381::Bls12_381>(cfg, report)?,
    };
    Ok(RunInfo {
        fixes: fixes(),
        keys: keys.to_json(),
    })
}

/// The 32-byte ChaCha20 seed of a run started with `--seed s`: SHA-256 of a domain tag and s.
/// Hashing (rather than ChaCha's own `seed_from_u64`) keeps every stream a full 256-bit seed
/// in form; a run with `--seed` is reproducible, not secret.
pub fn seed_bytes(seed: u64) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"db-sm-rsm/--seed/v1");
    h.update(seed.to_le_bytes());
    h.finalize().into()
}

fn run_on<E: Pairing>(cfg: &Config, report: &mut Report) -> Result<KeyMaterial> {
    let mut master = match cfg.seed {
        Some(s) => ChaCha20Rng::from_seed(seed_bytes(s)),
        None => ChaCha20Rng::from_entropy(),
    };
    crate::probe::record::<E>("start");
    let keys = report.section("main", Totals::None, |r| -> Result<KeyMaterial> {
        r.line(format!("number of entries: {}", cfg.n));
        r.line(format!("number of mix-servers: {}", cfg.m));
        r.line(format!("security: {}", cfg.security.name()));
        // The primes of every Paillier key, before and outside the protocol's timers (upstream
        // used fixed keys and timed only the dealer's work on them, in preprocessing).
        let keys = r.time_plain("key generation", || {
            crate::keys::obtain(&cfg.key_options(), cfg.m)
        })?;
        r.line(format!("keys: {}", keys.source.describe()));
        let (public, mut mixers, mut verifier) = r.section("preprocessing", Totals::None, |r| {
            setup::preprocess::<E>(cfg, r, &mut master, &keys)
        })?;
        let mut senders_rng = ChaCha20Rng::from_rng(&mut master).expect("ChaCha never fails");
        let inputs = r.time_plain("input preparation", || {
            inputs::prepare(cfg, &public, &mut senders_rng)
        })?;
        r.section("checking inputs", Totals::None, |r| {
            inputs::check(cfg, r, &public, &mut mixers, &inputs)
        })?;
        let mixed = r.section("mixing", Totals::Mixers, |r| {
            mix::run(cfg, r, &public, &mut mixers, &inputs)
        })?;
        let sm = r.section("forward set membership", Totals::MixersAndVerifier, |r| {
            dbsm::run(cfg, r, &public, &mut mixers, &mut verifier, &inputs, &mixed)
        })?;
        let rsm = r.section("reverse set membership", Totals::MixersAndVerifier, |r| {
            dbrsm::run(cfg, r, &public, &mut mixers, &mut verifier, &inputs, &mixed)
        })?;
        sizes::report(r, &public, &inputs, &sm, &rsm);
        Ok(keys)
    })?;
    crate::probe::record::<E>("end");
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{mask_numbers, paper_sample, sample_label_tree, without_additions};

    fn cfg(n: usize, m: usize, curve: Curve) -> Config {
        Config {
            n,
            m,
            curve,
            mode: Mode::Fast,
            security: SecurityLevel::Bits128,
            seed: Some(11),
            tamper: None,
            test_keys: false,
            key_cache: None,
        }
    }

    /// A real run at m = 4 prints the paper's label tree, line for line (numbers masked), with
    /// every status True.
    #[test]
    fn real_run_label_tree_matches_paper_sample_m4() {
        let sample = paper_sample();
        let mut r = Report::new(4, false);
        run(&cfg(2, 4, Curve::Bn254), &mut r).expect("the run completes");
        let got = mask_numbers(&without_additions(&r.render()));
        let want = sample_label_tree(&sample);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "line {} differs", i + 1);
        }
        assert_eq!(got.len(), want.len());
        assert!(r.all_ok());
    }

    #[test]
    fn one_mixer_is_refused() {
        let mut r = Report::new(1, false);
        let err = run(&cfg(3, 1, Curve::Bn254), &mut r).unwrap_err();
        assert!(err.to_string().contains("at least 2"), "{err}");
        assert!(
            r.statuses().is_empty(),
            "no status may be printed for m = 1"
        );
    }

    #[test]
    fn json_rows_of_a_real_run_have_totals_per_party() {
        let mut r = Report::new(2, false);
        let c = Config {
            test_keys: true,
            ..cfg(2, 2, Curve::Bls12_381)
        };
        let info = run(&c, &mut r).expect("the run completes");
        assert_eq!(info.keys["source"], "test");
        assert!(r.all_ok(), "{}", r.render());
        let rows = r.timer_rows();
        let totals = rows
            .iter()
            .filter(|row| row["label"] == "verifier total")
            .count();
        // forward/reverse sections, get_verfsigs, dpk_bbsig_nizkverifs, pkcommverifs,
        // get_verfsigs_rev, dpk_bbsplussig_nizkverifs.
        assert_eq!(totals, 7);
        assert_eq!(r.statuses().len(), 19);
    }
}
