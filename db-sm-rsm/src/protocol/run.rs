//! One full run of the protocol in report order (docs/protocol.md): key generation,
//! preprocessing, input preparation, checking inputs, mixing, DB-SM, DB-RSM and the size lines,
//! all recorded in a [`Report`].
//!
//! Every party is its own struct with its own secrets and its own CSPRNG stream
//! ([`crate::protocol::setup::Mixer`], [`crate::protocol::setup::Verifier`], the senders in
//! [`crate::protocol::inputs`]); a step of party P only reads P's struct and
//! [`crate::protocol::setup::Public`] data and what other parties posted. With `--transport
//! local` all parties run one after another in one process, as upstream (B19 in docs/fixes.md);
//! with `--transport tls` every process runs this same sequence for the parties it hosts
//! ([`crate::transport`]). Each step is timed under its party's tag.

use ark_ec::pairing::Pairing;
use ark_serialize::CanonicalSerialize;
use measure::envelope::Inputs as InputsDigest;
use rug::Integer;

use crate::measurement::probe;
#[cfg(test)]
use crate::measurement::report::Report;
use crate::measurement::report::Totals;
use crate::primitives::counters;
use crate::primitives::group::scalar_to_integer;
use crate::protocol::config::{Config, Curve, Mode};
use crate::protocol::inputs::{Inputs, ShareCt};
use crate::protocol::journaled::{journaled, NoStream};
use crate::protocol::keys::{self, KeyMaterial};
use crate::protocol::mix::Mixed;
use crate::protocol::setup::{party_rng, Dealing, Parties, Public};
use crate::protocol::{dbrsm, dbsm, fixes, inputs, mix, setup, sizes};
use crate::storage::CHUNK;
use crate::transport::Ctx;
use crate::Result;

/// What a run returns besides its report: the fixes list, the keys block of the JSON and the
/// digest of the run's generated inputs.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// The upstream defects this run fixes ([`fixes::fixes`]).
    pub fixes: Vec<String>,
    /// Where the keys came from and their sizes ([`KeyMaterial::to_json`]).
    pub keys: serde_json::Value,
    /// The digest of the generated inputs ([`digest_inputs`]).
    pub inputs: InputsDigest,
}

/// Runs everything on the configured curve, in the configured mode (the operation counters
/// switch to upstream's counts in paper mode), for the parties `c` hosts; returns the fixes
/// list, the keys block for the JSON (in the driver) and the inputs' digest.
pub fn run(cfg: &Config, c: &mut Ctx, dealing: &Dealing<'_>) -> Result<RunInfo> {
    cfg.validate()?;
    counters::set_paper(cfg.mode == Mode::Paper);
    let (keys, inputs) = match cfg.curve {
        Curve::Bn254 => run_on::<ark_bn254::Bn254>(cfg, c, dealing)?,
        Curve::Bls12_381 => run_on::<ark_bls12_381::Bls12_381>(cfg, c, dealing)?,
    };
    Ok(RunInfo {
        fixes: fixes::fixes(cfg.security),
        keys: keys.map_or(serde_json::Value::Null, |k| k.to_json()),
        inputs,
    })
}

fn run_on<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    dealing: &Dealing<'_>,
) -> Result<(Option<KeyMaterial>, InputsDigest)> {
    let driver = c.roles.driver;
    if driver {
        probe::record::<E>("start");
    }
    let out = c.section("main", Totals::None, |c| -> Result<_> {
        c.line(format!("number of entries: {}", cfg.n));
        c.line(format!("number of mix-servers: {}", cfg.m));
        c.line(format!("security: {}", cfg.security.name()));
        if let Some(h) = c.hold_option() {
            let line = crate::protocol::hold::text_line(h);
            c.line(line);
        }
        let keys = if c.roles.driver {
            Some(key_generation(cfg, c)?)
        } else {
            None
        };
        let Parties {
            public,
            mut mixers,
            mut verifier,
        } = setup::preprocessing::<E>(cfg, c, keys.as_ref(), dealing)?;
        let mut senders_rng = party_rng(cfg, "senders");
        let inputs = inputs::input_preparation(cfg, c, &public, &mut senders_rng)?;
        inputs::checking_inputs(cfg, c, &public, &mut mixers, &inputs)?;
        let mixed = mix::mixing(cfg, c, &public, &mut mixers, &inputs)?;
        let (v, i) = (&mut verifier, &inputs);
        let sm = dbsm::forward_set_membership(cfg, c, &public, &mut mixers, v, i, &mixed)?;
        let rsm = dbrsm::reverse_set_membership(cfg, c, &public, &mut mixers, v, i, &mixed)?;
        sizes::size_lines(c, &public, &inputs, &sm, &rsm)?;
        let digest = digest_inputs(&public, &inputs, &mixed)?;
        Ok((keys, digest))
    })?;
    if driver {
        probe::record::<E>("end");
    }
    Ok(out)
}

/// `key generation`: the primes of every Paillier key, before and outside the protocol's
/// timers (upstream used fixed keys and timed only the dealer's work on them, in
/// preprocessing), then the `keys:` line saying where they came from.
fn key_generation(cfg: &Config, c: &mut Ctx) -> Result<KeyMaterial> {
    let label = "key generation";
    let keys = journaled(c, None, label, &mut NoStream, |c, _| {
        c.time_plain(label, || keys::obtain(&cfg.key_options(), cfg.m))
    })?;
    c.line(format!("keys: {}", keys.source.describe()));
    Ok(keys)
}

/// The digest of a run's generated inputs (the report envelope's `inputs_sha256`): the public
/// keys (the Paillier moduli, which fix the primes, and the ElGamal key), the permutation
/// commitments, every sender's ciphertexts, commitment and share ciphertexts, and the mixnet's
/// output. Two runs with one seed give the same digest; runs without a seed differ.
pub fn digest_inputs<E: Pairing>(
    public: &Public<E>,
    inputs: &Inputs<E>,
    mixed: &Mixed<E>,
) -> Result<InputsDigest> {
    let mut d = InputsDigest::new();
    let int = |x: &Integer| x.to_digits::<u8>(rug::integer::Order::Msf);
    fn ark<T: CanonicalSerialize>(x: &T) -> Vec<u8> {
        let mut b = Vec::new();
        x.serialize_compressed(&mut b)
            .expect("serialising into a Vec cannot fail");
        b
    }
    d.add("threshold N", &int(&public.th.n));
    for (k, pk) in public.mixer_pks.iter().enumerate() {
        d.add(&format!("mixer {k} N"), &int(&pk.n));
    }
    d.add("ElGamal Y", &ark(&public.eg.y));
    for (k, a) in public.permcomms.iter().enumerate() {
        d.add(&format!("permcomm {k}"), &ark(&a.a));
    }
    let labels: Vec<[String; 2]> = (0..public.m)
        .map(|k| {
            [
                format!("share cv for mixer {k}"),
                format!("share cr for mixer {k}"),
            ]
        })
        .collect();
    let (cv, mut cr) = (inputs.cv.chunks(CHUNK), inputs.cr.chunks(CHUNK));
    let mut shares: Vec<_> = inputs.shares.iter().map(|s| s.chunks(CHUNK)).collect();
    let mut i = 0;
    for cvs in cv {
        let (cvs, crs) = (cvs?, cr.next_in_step()?);
        let own: Vec<Vec<ShareCt>> = shares
            .iter_mut()
            .map(|s| s.next_in_step())
            .collect::<Result<_>>()?;
        for (j, (v, r)) in cvs.iter().zip(&crs).enumerate() {
            d.add("cv", &int(v))
                .add("cr", &int(r))
                .add("gamma", &ark(&inputs.gammas[i + j]));
            for (k, own) in own.iter().enumerate() {
                d.add(&labels[k][0], &int(&own[j].cv))
                    .add(&labels[k][1], &int(&own[j].cr));
            }
        }
        i += cvs.len();
    }
    for v in mixed.msgs() {
        d.add("output", &int(&scalar_to_integer(v)));
    }
    Ok(d)
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
            seed: Some(measure::seed::Seed::from_bytes([11; 32])),
            tamper: None,
            test_keys: false,
            key_cache: None,
            secret_seed: None,
        }
    }

    /// A real run at m = 4 prints the paper's label tree, line for line (numbers masked), with
    /// every status True.
    #[test]
    fn real_run_label_tree_matches_paper_sample_m4() {
        let sample = paper_sample();
        let mut r = Ctx::local(Report::new(4, false));
        run(&cfg(2, 4, Curve::Bn254), &mut r, &Dealing::InProcess).expect("the run completes");
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
        let mut r = Ctx::local(Report::new(1, false));
        let err = run(&cfg(3, 1, Curve::Bn254), &mut r, &Dealing::InProcess).unwrap_err();
        assert!(err.to_string().contains("at least 2"), "{err}");
        assert!(
            r.statuses().is_empty(),
            "no status may be printed for m = 1"
        );
    }

    #[test]
    fn json_rows_of_a_real_run_have_totals_per_party() {
        let mut r = Ctx::local(Report::new(2, false));
        let c = Config {
            test_keys: true,
            ..cfg(2, 2, Curve::Bls12_381)
        };
        let info = run(&c, &mut r, &Dealing::InProcess).expect("the run completes");
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
        // `--hold-at` accepts the sections a run opens: every timer with timers inside, and the
        // party-less timers that hold only a line (pai_th_keygen, pai_keygen).
        let records = r.records();
        let listed = crate::protocol::hold::SECTIONS;
        for t in records.iter().filter(|t| t.section) {
            assert!(
                listed.contains(&t.name.as_str()),
                "{} is not listed",
                t.name
            );
        }
        for name in listed {
            let found = records.iter().any(|t| t.party.is_none() && t.name == name);
            assert!(found, "{name} is not a section of the run");
        }
    }
}
