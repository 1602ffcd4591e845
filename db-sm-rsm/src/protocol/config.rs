//! What to run: the number of entries and mix-servers, the curve, the mode, the security
//! setting, the seed, the tamper and where the keys come from. Every protocol step reads its
//! [`Config`]; this module imports none of them.

use std::path::PathBuf;

use clap::ValueEnum;
use measure::seed::Seed;

use crate::primitives::security::SecurityLevel;
use crate::protocol::keys::{self, KeyOptions};
use crate::protocol::tamper::{Cheater, Tamper};
use crate::{Error, Result};

/// The pairing curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Curve {
    /// BN254: the paper's size class.
    #[value(name = "bn254")]
    Bn254,
    /// BLS12-381: the curve with the security level we recommend.
    #[value(name = "bls12-381")]
    Bls12_381,
}

impl Curve {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Curve::Bn254 => "bn254",
            Curve::Bls12_381 => "bls12-381",
        }
    }
}

/// How products of powers and batches of proofs are computed; both modes prove and check the
/// same statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Multi-exponentiations, fixed-base tables for every reused base, batch verification.
    Fast,
    /// Upstream's operation counts: every power on its own, each proof checked on its own,
    /// upstream's table sizes (for a like-for-like comparison with the paper's figures).
    Paper,
}

impl Mode {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Fast => "fast",
            Mode::Paper => "paper",
        }
    }

    /// True in fast mode, where a batch of proofs is checked as one.
    pub fn batches(self) -> bool {
        self == Mode::Fast
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Number of entries: senders, ciphertexts, messages.
    pub n: usize,
    /// Number of mix-servers.
    pub m: usize,
    /// The pairing curve.
    pub curve: Curve,
    /// Fast or paper mode.
    pub mode: Mode,
    /// Challenge, batching and slack lengths of every proof.
    pub security: SecurityLevel,
    /// The public seed of every party's generator, for a reproducible run (whose keys and
    /// secrets are then not secret); None: every generator is keyed by the OS.
    pub seed: Option<Seed>,
    /// The one value a party corrupts, if any.
    pub tamper: Option<Tamper>,
    /// Use the checked-in test keys instead of generating keys (insecure; the report says so).
    pub test_keys: bool,
    /// Where generated keys of seeded runs are kept ([`crate::protocol::keys`]).
    pub key_cache: Option<PathBuf>,
    /// With no public seed: the seed of this process's generators, fresh from the operating
    /// system and kept only in the run's journal (secret), so that a resumed run draws what the
    /// first attempt would have. None: every generator keyed by the operating system.
    pub secret_seed: Option<Seed>,
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

    /// True iff `t` is the requested tamper and `who` is the party that applies it
    /// ([`Tamper::cheater`]).
    pub fn cheats(&self, t: Tamper, who: Cheater) -> bool {
        self.tampers(t) && t.cheater().is(who, self.m)
    }

    /// Checks what can be checked before any work: n >= 1, m >= 2, a tamper that this n
    /// allows, and the key options.
    pub fn validate(&self) -> Result<()> {
        if self.n == 0 {
            return Err(Error::Input("n must be at least 1".into()));
        }
        if self.m < 2 {
            // With one mixer every "each mixer verifies the others' proofs" step checks nothing,
            // so a run would print True for statuses nobody checked.
            return Err(Error::Input(format!(
                "m = {} mix-servers: at least 2 are needed, so that every proof is checked by \
                 another mixer",
                self.m
            )));
        }
        if self.tampers(Tamper::Replay) && self.n < 2 {
            return Err(Error::Input(
                "--tamper replay needs n >= 2 (sender 1 replays sender 0's input)".into(),
            ));
        }
        keys::check_options(&self.key_options(), self.m)
    }
}
