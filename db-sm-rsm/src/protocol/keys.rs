//! Where the Paillier keys' primes come from: generated from the operating system's generator
//! (the default), derived from the public seed (`--seed`, possibly through the key cache), or the
//! fixed test keys (`--test-keys`).
//!
//! * The threshold key needs two safe primes of 1025 and 1026 bits (a 2050-bit N, upstream's
//!   size); each mixer's own key needs P = 2pp′+1 and Q = 2qq′+1 with p, q, p′, q′ prime
//!   (a 2048-bit N). Every mixer gets its own key.
//! * Generation is the primes only; the dealer's work on them (key shares, bases, tables) stays
//!   in `pai_th_keygen` / `pai_keygen`, as upstream timed it. The run times generation on its
//!   own report line, `key generation`, outside preprocessing.
//! * A run with `--seed S` derives each key's generator from S and the key's name, so its keys
//!   are a function of (bits, S). S is public (the report prints it), so such keys are *not
//!   secret*: the report says "derived from the public seed (not secret)". They exist for
//!   reproducible measurements only. With a key cache (`--key-cache DIR`), such keys are stored
//!   in DIR as JSON, one file per key named by kind, bits and seed, and later runs with the same
//!   S load them instead of searching again: the cache changes how long a run takes, never what
//!   it computes. Keys of a run without `--seed` come from the operating system's generator, are
//!   secret, and are never written to disk.
//! * The fixed test keys are public constants checked in with the code (threshold primes in
//!   [`crate::primitives::thpaillier::fixed`], four mixer keys in [`crate::primitives::paillier::fixed`]): insecure, for
//!   quick runs only, and the report says when they were used.

use std::path::{Path, PathBuf};

use measure::seed::Seed;
use rand_chacha::ChaCha20Rng;
use rug::Integer;
use serde_json::{json, Value};

use crate::primitives::bigint::{self, from_hex};
use crate::primitives::paillier::{self, MhlParams, PaillierKey};
use crate::primitives::thpaillier;
use crate::{Error, Result};

/// Bits of the threshold-Paillier modulus N (upstream's: 2050).
pub const THRESHOLD_BITS: u32 = 2050;
/// Size of each mixer's own Paillier key (upstream's: 2048-bit N, 448-bit short exponents).
pub const MIXER_PARAMS: MhlParams = MhlParams::PAPER;

/// The two safe primes of the threshold key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThresholdPrimes {
    /// P′ = 2p′ + 1.
    pub p: Integer,
    /// Q′ = 2q′ + 1.
    pub q: Integer,
}

/// The primes of one mixer's key: P = 2pp′ + 1 and Q = 2qq′ + 1 with the short-exponent primes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MixerPrimes {
    /// P.
    pub big_p: Integer,
    /// p (l/2 bits).
    pub p: Integer,
    /// Q.
    pub big_q: Integer,
    /// q (l/2 bits).
    pub q: Integer,
}

/// Where a run's keys came from, as the report says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeySource {
    /// Searched in this run with the operating system's generator: fresh and secret.
    Generated,
    /// Searched in this run with generators derived from the public `--seed`: reproducible and
    /// not secret.
    Seeded,
    /// Derived from the public `--seed` by an earlier run, loaded from the key cache: not
    /// secret.
    SeededCache,
    /// The checked-in test keys.
    TestKeys,
}

impl KeySource {
    /// The name in the JSON report: `generated`, `seed`, `seed-cache` or `test`.
    pub fn name(self) -> &'static str {
        match self {
            KeySource::Generated => "generated",
            KeySource::Seeded => "seed",
            KeySource::SeededCache => "seed-cache",
            KeySource::TestKeys => "test",
        }
    }

    /// The text report's `keys:` line.
    pub fn describe(self) -> &'static str {
        match self {
            KeySource::Generated => "generated (fresh, secret)",
            KeySource::Seeded => "derived from the public seed (not secret)",
            KeySource::SeededCache => {
                "derived from the public seed (not secret), from the key cache"
            }
            KeySource::TestKeys => "fixed test keys (public, insecure)",
        }
    }

    /// True only for keys nobody else can know: generated from the operating system's
    /// generator. Keys derived from the seed are a function of a value the report prints.
    pub fn secret(self) -> bool {
        self == KeySource::Generated
    }
}

/// How to obtain the keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyOptions {
    /// Use the checked-in test keys.
    pub test_keys: bool,
    /// The key cache directory (used only with a seed).
    pub cache: Option<PathBuf>,
    /// The run's public `--seed`.
    pub seed: Option<Seed>,
}

/// Every prime a run needs, and where they came from.
#[derive(Clone, Debug)]
pub struct KeyMaterial {
    /// The threshold key's safe primes.
    pub threshold: ThresholdPrimes,
    /// One key per mixer.
    pub mixers: Vec<MixerPrimes>,
    /// Where they came from.
    pub source: KeySource,
}

crate::wire_struct!(impl ThresholdPrimes { wire p, wire q });
crate::wire_struct!(impl MixerPrimes { wire big_p, wire p, wire big_q, wire q });

/// Key material travels only into the dealer's own journal: it holds every secret key.
impl crate::primitives::wire::Wire for KeyMaterial {
    fn put(&self, out: &mut Vec<u8>) {
        self.threshold.put(out);
        self.mixers.put(out);
        let source: u32 = match self.source {
            KeySource::Generated => 0,
            KeySource::Seeded => 1,
            KeySource::SeededCache => 2,
            KeySource::TestKeys => 3,
        };
        source.put(out);
    }
    fn get(inp: &mut &[u8]) -> crate::Result<Self> {
        let threshold = ThresholdPrimes::get(inp)?;
        let mixers = Vec::get(inp)?;
        let source = match u32::get(inp)? {
            0 => KeySource::Generated,
            1 => KeySource::Seeded,
            2 => KeySource::SeededCache,
            3 => KeySource::TestKeys,
            k => return Err(crate::Error::Input(format!("no key source {k}"))),
        };
        Ok(KeyMaterial {
            threshold,
            mixers,
            source,
        })
    }
}

impl KeyMaterial {
    /// The JSON report's `keys` block (without its time, which the report's timer holds).
    pub fn to_json(&self) -> Value {
        json!({
            "source": self.source.name(),
            "secret": self.source.secret(),
            "description": self.source.describe(),
            "threshold_modulus_bits": Integer::from(&self.threshold.p * &self.threshold.q)
                .significant_bits(),
            "mixer_modulus_bits": self
                .mixers
                .iter()
                .map(|k| Integer::from(&k.big_p * &k.big_q).significant_bits())
                .collect::<Vec<_>>(),
        })
    }
}

/// How many mixers the fixed test keys cover.
pub const TEST_MIXER_KEYS: usize = paillier::fixed::MIXER_2048.len();

/// Checks the options before any work: the test keys cover at most [`TEST_MIXER_KEYS`]
/// mixers, and a cache directory must be writable.
pub fn check_options(opts: &KeyOptions, m: usize) -> Result<()> {
    if opts.test_keys && m > TEST_MIXER_KEYS {
        return Err(Error::Input(format!(
            "--test-keys has {TEST_MIXER_KEYS} mixer keys, not {m}: generate the keys instead"
        )));
    }
    if let Some(dir) = &opts.cache {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Input(format!(
                "key cache {}: cannot create it: {e}",
                dir.display()
            ))
        })?;
        let probe = dir.join(".write-probe");
        std::fs::write(&probe, b"")
            .map_err(|e| Error::Input(format!("key cache {}: not writable: {e}", dir.display())))?;
        let _ = std::fs::remove_file(probe);
    }
    Ok(())
}

/// The key material of a run with m mixers.
pub fn obtain(opts: &KeyOptions, m: usize) -> Result<KeyMaterial> {
    check_options(opts, m)?;
    if opts.test_keys {
        return Ok(test_keys(m));
    }
    let cache = match (&opts.cache, &opts.seed) {
        (Some(dir), Some(seed)) => Some((dir.as_path(), seed)),
        _ => None,
    };
    let mut loaded = 0;
    let threshold = obtain_one(
        cache,
        opts.seed.as_ref(),
        "threshold",
        THRESHOLD_BITS,
        &mut loaded,
        |rng| {
            let a = THRESHOLD_BITS / 2;
            Entry::Threshold(ThresholdPrimes {
                p: bigint::safe_prime(rng, a),
                q: bigint::safe_prime(rng, THRESHOLD_BITS + 1 - a),
            })
        },
    )?;
    let Entry::Threshold(threshold) = threshold else {
        unreachable!("the threshold entry is a threshold key")
    };
    let mut mixers = Vec::with_capacity(m);
    for k in 0..m {
        let name = format!("mixer{k}");
        let e = obtain_one(
            cache,
            opts.seed.as_ref(),
            &name,
            MIXER_PARAMS.n_bits,
            &mut loaded,
            |rng| {
                let (big_p, p, big_q, q) = PaillierKey::search_primes(rng, MIXER_PARAMS);
                Entry::Mixer(MixerPrimes { big_p, p, big_q, q })
            },
        )?;
        let Entry::Mixer(primes) = e else {
            unreachable!("a mixer entry is a mixer key")
        };
        mixers.push(primes);
    }
    let source = match opts.seed {
        None => KeySource::Generated,
        Some(_) if loaded == m + 1 => KeySource::SeededCache,
        Some(_) => KeySource::Seeded,
    };
    Ok(KeyMaterial {
        threshold,
        mixers,
        source,
    })
}

/// The checked-in test keys.
fn test_keys(m: usize) -> KeyMaterial {
    KeyMaterial {
        threshold: ThresholdPrimes {
            p: from_hex(thpaillier::fixed::P_2050),
            q: from_hex(thpaillier::fixed::Q_2050),
        },
        mixers: paillier::fixed::MIXER_2048[..m]
            .iter()
            .map(|[bp, p, bq, q]| MixerPrimes {
                big_p: from_hex(bp),
                p: from_hex(p),
                big_q: from_hex(bq),
                q: from_hex(q),
            })
            .collect(),
        source: KeySource::TestKeys,
    }
}

/// One key: a threshold key or a mixer key.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Entry {
    Threshold(ThresholdPrimes),
    Mixer(MixerPrimes),
}

impl Entry {
    fn primes(&self) -> Vec<(&'static str, &Integer)> {
        match self {
            Entry::Threshold(t) => vec![("P", &t.p), ("Q", &t.q)],
            Entry::Mixer(k) => vec![("P", &k.big_p), ("p", &k.p), ("Q", &k.big_q), ("q", &k.q)],
        }
    }

    /// Checks the primes as the key constructors will, so that a damaged cache file is refused
    /// before the run starts.
    fn validate(&self, bits: u32) -> Result<()> {
        match self {
            Entry::Threshold(t) => {
                let n = Integer::from(&t.p * &t.q);
                let safe = |x: &Integer| {
                    bigint::is_prime(x) && bigint::is_prime(&(Integer::from(x - 1u32) / 2u32))
                };
                if n.significant_bits() != bits || t.p == t.q || !safe(&t.p) || !safe(&t.q) {
                    return Err(Error::Input(format!(
                        "not two distinct safe primes with a {bits}-bit product"
                    )));
                }
                Ok(())
            }
            Entry::Mixer(k) => {
                let n = Integer::from(&k.big_p * &k.big_q);
                if n.significant_bits() != bits {
                    return Err(Error::Input(format!("not a {bits}-bit modulus")));
                }
                PaillierKey::check_primes(&k.big_p, &k.p, &k.big_q, &k.q)
            }
        }
    }
}

/// The generator of key `name`: the stream `db-sm-rsm/keys/<name>` of the public seed, so every
/// key is a function of the seed and its name alone (and not secret); without a seed, keyed by
/// the operating system.
fn key_rng(seed: Option<&Seed>, name: &str) -> ChaCha20Rng {
    measure::seed::stream(&format!("db-sm-rsm/keys/{name}"), seed)
}

/// The cache file of key `name` of `bits` bits for `seed`.
pub fn cache_file(dir: &Path, name: &str, bits: u32, seed: &Seed) -> PathBuf {
    dir.join(format!("{name}-{bits}-seed-{}.json", seed.hex()))
}

const FORMAT: &str = "db-sm-rsm key cache v2";

/// Loads key `name` from the cache, or generates it (from the seed if there is one, else from
/// the operating system) and stores it in the cache when there is one.
fn obtain_one(
    cache: Option<(&Path, &Seed)>,
    seed: Option<&Seed>,
    name: &str,
    bits: u32,
    loaded: &mut usize,
    generate: impl FnOnce(&mut ChaCha20Rng) -> Entry,
) -> Result<Entry> {
    if let Some((dir, seed)) = cache {
        let path = cache_file(dir, name, bits, seed);
        if path.exists() {
            let e = load(&path, name, bits, seed)?;
            *loaded += 1;
            return Ok(e);
        }
    }
    let entry = generate(&mut key_rng(seed, name));
    if let Some((dir, seed)) = cache {
        store(&cache_file(dir, name, bits, seed), &entry, name, bits, seed)?;
    }
    Ok(entry)
}

fn store(path: &Path, e: &Entry, name: &str, bits: u32, seed: &Seed) -> Result<()> {
    let primes: serde_json::Map<String, Value> = e
        .primes()
        .into_iter()
        .map(|(k, v)| (k.to_string(), json!(v.to_string_radix(16))))
        .collect();
    let doc = json!({"format": FORMAT, "key": name, "bits": bits, "seed": seed.hex(),
                     "primes": primes});
    measure::output::write_json_atomic(path, &doc)
        .map_err(|e| Error::Input(format!("key cache {}: cannot write: {e}", path.display())))
}

fn load(path: &Path, name: &str, bits: u32, seed: &Seed) -> Result<Entry> {
    let bad = |why: String| {
        Error::Input(format!(
            "key cache {}: {why}; delete the file to generate the key again",
            path.display()
        ))
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    if doc["format"] != FORMAT
        || doc["key"] != name
        || doc["bits"] != bits
        || doc["seed"] != seed.hex()
    {
        return Err(bad(format!(
            "not the {FORMAT} file of key {name}, {bits} bits, seed {seed}"
        )));
    }
    let prime = |k: &str| -> Result<Integer> {
        doc["primes"][k]
            .as_str()
            .and_then(|h| Integer::from_str_radix(h, 16).ok())
            .ok_or_else(|| bad(format!("prime {k} missing or not hexadecimal")))
    };
    let e = if name == "threshold" {
        Entry::Threshold(ThresholdPrimes {
            p: prime("P")?,
            q: prime("Q")?,
        })
    } else {
        Entry::Mixer(MixerPrimes {
            big_p: prime("P")?,
            p: prime("p")?,
            big_q: prime("Q")?,
            q: prime("q")?,
        })
    };
    e.validate(bits).map_err(|e| bad(e.to_string()))?;
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(b: u8) -> Seed {
        Seed::from_bytes([b; 32])
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dbsm-keys-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// Generated keys (`seed`) with a cache in a fresh scratch directory `name`.
    fn cached(name: &str, seed: Option<Seed>) -> (PathBuf, KeyOptions) {
        let dir = scratch(name);
        let opts = KeyOptions {
            test_keys: false,
            cache: Some(dir.clone()),
            seed,
        };
        (dir, opts)
    }

    #[test]
    fn seeded_keys_are_cached_and_reloaded_unchanged() {
        let (dir, opts) = cached("cache", Some(seed(42)));
        let first = obtain(&opts, 2).unwrap();
        assert_eq!(first.source, KeySource::Seeded);
        assert!(!first.source.secret());
        for name in ["threshold-2050", "mixer0-2048", "mixer1-2048"] {
            let file = format!("{name}-seed-{}.json", seed(42).hex());
            assert!(dir.join(file).exists(), "{name}");
        }
        let again = obtain(&opts, 2).unwrap();
        assert_eq!(again.source, KeySource::SeededCache);
        assert!(again.source.describe().contains("not secret"));
        assert_eq!(again.threshold, first.threshold);
        assert_eq!(again.mixers, first.mixers);
        // The cache changes nothing: the same seed without a cache gives the same keys.
        let fresh = obtain(
            &KeyOptions {
                cache: None,
                ..opts.clone()
            },
            2,
        )
        .unwrap();
        assert_eq!(fresh.mixers, first.mixers);
        // One key per mixer.
        assert_ne!(first.mixers[0], first.mixers[1]);
        // A damaged file is refused by name.
        let f = cache_file(&dir, "mixer1", 2048, &seed(42));
        let text = std::fs::read_to_string(&f).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        let p = doc["primes"]["p"].as_str().unwrap().to_string();
        let q = doc["primes"]["q"].as_str().unwrap().to_string();
        std::fs::write(&f, text.replace(&p, &q)).unwrap();
        let err = obtain(&opts, 2).unwrap_err().to_string();
        assert!(err.contains("mixer1-2048-seed-2a2a"), "{err}");
        std::fs::write(&f, "{").unwrap();
        assert!(obtain(&opts, 2).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unseeded_keys_are_fresh_and_never_stored() {
        let (dir, opts) = cached("unseeded", None);
        let a = obtain(&opts, 2).unwrap();
        let b = obtain(&opts, 2).unwrap();
        assert_eq!(a.source, KeySource::Generated);
        assert!(a.source.secret());
        assert_ne!(a.threshold, b.threshold);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn test_keys_cover_four_mixers_and_are_valid() {
        let k = obtain(
            &KeyOptions {
                test_keys: true,
                ..Default::default()
            },
            4,
        )
        .unwrap();
        assert_eq!(k.source, KeySource::TestKeys);
        Entry::Threshold(k.threshold.clone())
            .validate(THRESHOLD_BITS)
            .unwrap();
        for (i, a) in k.mixers.iter().enumerate() {
            Entry::Mixer(a.clone()).validate(2048).unwrap();
            for b in &k.mixers[i + 1..] {
                assert_ne!(a.big_p, b.big_p);
            }
        }
        let too_many = KeyOptions {
            test_keys: true,
            ..Default::default()
        };
        assert!(check_options(&too_many, 5).is_err());
    }

    /// Every mixer key, generated or checked in, has p′ and q′ prime: Z*_P and Z*_Q then have
    /// no element of small odd order (the audit found 3², 5 and 11 in the former fixed key's p′,
    /// which let a sender pass the proof of knowledge with a ciphertext that does not decrypt).
    #[test]
    fn mixer_keys_have_no_small_odd_order_subgroup() {
        let small: Integer = (3u32..2000)
            .filter(|x| bigint::is_prime(&Integer::from(*x)))
            .map(Integer::from)
            .product();
        let k = obtain(
            &KeyOptions {
                test_keys: true,
                ..Default::default()
            },
            4,
        )
        .unwrap();
        let generated = obtain(
            &KeyOptions {
                seed: Some(seed(7)),
                ..Default::default()
            },
            2,
        )
        .unwrap();
        for key in k.mixers.iter().chain(&generated.mixers) {
            for big in [&key.big_p, &key.big_q] {
                let order = Integer::from(big - 1u32);
                assert_eq!(order.gcd(&small), 1u32, "P − 1 has a small odd factor");
            }
        }
    }
}
