//! One full run of the protocol in report order (docs/protocol.md): key generation,
//! preprocessing, input preparation, checking inputs, mixing, DB-SM, DB-RSM and the size lines,
//! all recorded in a [`Report`].
//!
//! Every party is its own struct with its own secrets and its own CSPRNG stream
//! ([`crate::protocol::setup::Mixer`], [`crate::protocol::setup::Verifier`], the senders in
//! [`crate::protocol::inputs`]); a step of party P only reads P's struct and
//! [`crate::protocol::setup::Public`] data. All parties run one after another in one process, as
//! upstream (B19 in docs/fixes.md), and each step is timed under its party's tag.

use ark_ec::pairing::Pairing;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use crate::measurement::probe;
use crate::measurement::report::{Report, Totals};
use crate::primitives::counters;
use crate::protocol::config::{seed_bytes, Config, Curve, Mode};
use crate::protocol::keys::{self, KeyMaterial};
use crate::protocol::setup::Parties;
use crate::protocol::{dbrsm, dbsm, fixes, inputs, mix, setup, sizes};
use crate::Result;

/// What a run returns besides its report: the fixes list and the keys block of the JSON.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// The upstream defects this run fixes ([`fixes::fixes`]).
    pub fixes: Vec<String>,
    /// Where the keys came from and their sizes ([`KeyMaterial::to_json`]).
    pub keys: serde_json::Value,
}

/// Runs everything on the configured curve, in the configured mode (the operation counters
/// switch to upstream's counts in paper mode); returns the fixes list and the keys block for
/// the JSON.
pub fn run(cfg: &Config, report: &mut Report) -> Result<RunInfo> {
    cfg.validate()?;
    counters::set_paper(cfg.mode == Mode::Paper);
    let keys = match cfg.curve {
        Curve::Bn254 => run_on::<ark_bn254::Bn254>(cfg, report)?,
        Curve::Bls12_381 => run_on::<ark_bls12_381::Bls12_381>(cfg, report)?,
    };
    Ok(RunInfo {
        fixes: fixes::fixes(cfg.security),
        keys: keys.to_json(),
    })
}

fn run_on<E: Pairing>(cfg: &Config, report: &mut Report) -> Result<KeyMaterial> {
    let mut master = match cfg.seed {
        Some(s) => ChaCha20Rng::from_seed(seed_bytes(s)),
        None => ChaCha20Rng::from_entropy(),
    };
    probe::record::<E>("start");
    let keys = report.section("main", Totals::None, |r| -> Result<KeyMaterial> {
        r.line(format!("number of entries: {}", cfg.n));
        r.line(format!("number of mix-servers: {}", cfg.m));
        r.line(format!("security: {}", cfg.security.name()));
        let keys = key_generation(cfg, r)?;
        let Parties {
            public,
            mut mixers,
            mut verifier,
        } = setup::preprocessing::<E>(cfg, r, &mut master, &keys)?;
        let mut senders_rng = ChaCha20Rng::from_rng(&mut master).expect("ChaCha never fails");
        let inputs = inputs::input_preparation(cfg, r, &public, &mut senders_rng)?;
        inputs::checking_inputs(cfg, r, &public, &mut mixers, &inputs);
        let mixed = mix::mixing(cfg, r, &public, &mut mixers, &inputs)?;
        let (v, i) = (&mut verifier, &inputs);
        let sm = dbsm::forward_set_membership(cfg, r, &public, &mut mixers, v, i, &mixed)?;
        let rsm = dbrsm::reverse_set_membership(cfg, r, &public, &mut mixers, v, i, &mixed)?;
        sizes::size_lines(r, &public, &inputs, &sm, &rsm);
        Ok(keys)
    })?;
    probe::record::<E>("end");
    Ok(keys)
}

/// `key generation`: the primes of every Paillier key, before and outside the protocol's
/// timers (upstream used fixed keys and timed only the dealer's work on them, in
/// preprocessing), then the `keys:` line saying where they came from.
fn key_generation(cfg: &Config, r: &mut Report) -> Result<KeyMaterial> {
    let keys = r.time_plain("key generation", || keys::obtain(&cfg.key_options(), cfg.m))?;
    r.line(format!("keys: {}", keys.source.describe()));
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measurement::format::{
        mask_numbers, paper_sample, sample_label_tree, without_additions,
    };
    use crate::primitives::security::SecurityLevel;
    use crate::protocol::config::Mode;

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
