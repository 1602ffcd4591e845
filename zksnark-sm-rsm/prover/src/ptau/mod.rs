//! Powers of tau for snarkjs's Groth16 setup, generated natively: the file snarkjs's own
//! ceremony (`powersoftau new`, one `contribute`, `prepare phase2`) produces, in its `.ptau`
//! format, from one participant's secrets tau, alpha and beta.
//!
//! One participant who knows the trapdoor is a benchmark's setup, not a trusted one: whoever
//! holds tau (or the public `--seed` it was drawn from) can forge proofs for every key made from
//! the file. Knowing tau is also what makes this fast: every point is a fixed-base multiple of a
//! generator by an exponent computed in F_r (`scalars`), where snarkjs, which must work from
//! the points alone, runs group FFTs in WebAssembly for the Lagrange sections.
//!
//! # The file (N = 2^power)
//!
//! The container of circom's binary files: magic `ptau`, u32 version 1, u32 section count (11),
//! then sections (u32 type, u64 byte size, body), all little-endian, points in LEM form
//! (`encode`):
//!
//! | type | holds |
//! |------|-------|
//! | 1  | u32 32, q (32 bytes), u32 power, u32 ceremony power (= power) |
//! | 2  | τ^i·G1 for i < 2N - 1 |
//! | 3  | τ^i·G2 for i < N |
//! | 4  | ατ^i·G1 for i < N |
//! | 5  | βτ^i·G1 for i < N |
//! | 6  | β·G2 |
//! | 7  | the contributions: u32 count (1), then τ·G1, τ·G2, α·G1, β·G1, β·G2, the public key, the partial response hash (216 bytes), the next challenge (64), u32 type (0, not a beacon), u32 length and the parameters (1, length, name) |
//! | 12 | L^(2^p)_j(τ)·G1 for p = 0 ..= power + 1, smallest first (the last truncated, see `scalars`) |
//! | 13 | L^(2^p)_j(τ)·G2 for p = 0 ..= power |
//! | 14 | α·L^(2^p)_j(τ)·G1 for p = 0 ..= power |
//! | 15 | β·L^(2^p)_j(τ)·G1 for p = 0 ..= power |
//!
//! # The contribution's hashes and key
//!
//! - The first challenge: BLAKE2b-512 of BLAKE2b-512("") and the sections 2 to 6 of the empty
//!   accumulator (every point a generator), uncompressed.
//! - The public key, per secret x of tau, alpha, beta: a random s·G1, (s·x)·G1 and x·P, where P
//!   is the G2 point hashed from the challenge and those two (`hash_to_g2`); a verifier checks
//!   e(s·G1, x·P) = e(s·x·G1, P), and that the points of the file follow from the same x.
//! - The response hash: BLAKE2b-512 of the challenge, the sections 2 to 6 compressed, and the
//!   public key uncompressed; the file stores the hasher's state before the key (`blake2b`).
//! - The next challenge: BLAKE2b-512 of the response hash and the sections 2 to 6 uncompressed.

pub mod blake2b;
pub mod encode;
pub mod hash_to_g2;
pub mod scalars;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use ark_bn254::{Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use ark_ec::scalar_mul::fixed_base::FixedBase;
use ark_ec::{AffineRepr, CurveGroup, Group};
use ark_ff::{BigInteger, Field, One, PrimeField, UniformRand, Zero};
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::Error;
use blake2b::Blake2b;
use encode::Encode;

/// The largest power: at 2^(power+1) snarkjs's Lagrange step needs roots of unity F_r has (2^28).
pub const MAX_POWER: u32 = 27;

/// The participant's secrets.
pub struct Trapdoor {
    /// τ, whose powers the file holds.
    pub tau: Fr,
    /// α, multiplied into the α·τ^i powers.
    pub alpha: Fr,
    /// β, multiplied into the β·τ^i powers and β·G2.
    pub beta: Fr,
}

impl Trapdoor {
    /// Non-zero secrets, tau outside every domain the file's Lagrange bases are taken over
    /// (τ^(2N) ≠ 1), so that every basis is defined.
    pub fn sample<R: RngCore + CryptoRng>(power: u32, rng: &mut R) -> Trapdoor {
        let nonzero = |rng: &mut R| loop {
            let x = Fr::rand(rng);
            if !x.is_zero() {
                return x;
            }
        };
        let tau = loop {
            let t = nonzero(rng);
            if t.pow([2u64 << power]) != Fr::one() {
                break t;
            }
        };
        Trapdoor {
            tau,
            alpha: nonzero(rng),
            beta: nonzero(rng),
        }
    }
}

/// What a generation wrote.
pub struct Written {
    /// The file's size.
    pub bytes: u64,
    /// The challenge this first contribution answers ([`first_challenge`]).
    pub first_challenge: [u8; 64],
    /// The hash of the response: the compressed points and the public key.
    pub response: [u8; 64],
    /// The challenge a next contributor would answer.
    pub next_challenge: [u8; 64],
}

/// Fixed-base multiplication of many exponents by one generator.
struct Table<G: CurveGroup> {
    window: usize,
    table: Vec<Vec<G::Affine>>,
}

impl<G: CurveGroup> Table<G> {
    /// A table sized for about `count` multiplications.
    fn new(count: usize) -> Self {
        let window = FixedBase::get_mul_window_size(count);
        let table =
            FixedBase::get_window_table(Fr::MODULUS_BIT_SIZE as usize, window, G::generator());
        Table { window, table }
    }

    fn mul(&self, scalars: &[G::ScalarField]) -> Vec<G::Affine> {
        let points: Vec<G> = FixedBase::msm(
            G::ScalarField::MODULUS_BIT_SIZE as usize,
            self.window,
            &self.table,
            scalars,
        );
        G::normalize_batch(&points)
    }
}

/// One secret's public key (module documentation).
struct KeyPart {
    g1_s: G1Affine,
    g1_sx: G1Affine,
    g2_spx: G2Affine,
}

impl KeyPart {
    fn new<R: RngCore + CryptoRng>(
        x: Fr,
        personalisation: u8,
        challenge: &[u8; 64],
        rng: &mut R,
    ) -> Self {
        let s = loop {
            let s = Fr::rand(rng);
            if !s.is_zero() {
                break s;
            }
        };
        let g1_s = (G1Projective::generator() * s).into_affine();
        let g1_sx = (g1_s * x).into_affine();
        let g2_sp = hash_to_g2::g2_sp(personalisation, challenge, &g1_s, &g1_sx);
        KeyPart {
            g1_s,
            g1_sx,
            g2_spx: (g2_sp * x).into_affine(),
        }
    }
}

/// The contribution's public key in the file's order.
struct PublicKey([KeyPart; 3]);

impl PublicKey {
    fn encode(
        &self,
        out: &mut Vec<u8>,
        g1: fn(&G1Affine, &mut Vec<u8>),
        g2: fn(&G2Affine, &mut Vec<u8>),
    ) {
        for k in &self.0 {
            g1(&k.g1_s, out);
            g1(&k.g1_sx, out);
        }
        for k in &self.0 {
            g2(&k.g2_spx, out);
        }
    }
}

/// The phase-1 sections 2 to 6, in order.
struct Phase1 {
    tau_g1: Vec<G1Affine>,
    tau_g2: Vec<G2Affine>,
    alpha_tau_g1: Vec<G1Affine>,
    beta_tau_g1: Vec<G1Affine>,
    beta_g2: Vec<G2Affine>,
}

impl Phase1 {
    /// Feeds every point, in order, in one encoding to `h`.
    fn hash(&self, h: &mut Blake2b, compressed: bool) {
        hash_points(h, &self.tau_g1, compressed);
        hash_points(h, &self.tau_g2, compressed);
        hash_points(h, &self.alpha_tau_g1, compressed);
        hash_points(h, &self.beta_tau_g1, compressed);
        hash_points(h, &self.beta_g2, compressed);
    }
}

const ENCODE_CHUNK: usize = 1 << 12;

fn hash_points<P: Encode>(h: &mut Blake2b, points: &[P], compressed: bool) {
    let chunks: Vec<Vec<u8>> = points
        .par_chunks(ENCODE_CHUNK)
        .map(|c| {
            let mut out = Vec::with_capacity(c.len() * P::BYTES);
            for p in c {
                if compressed {
                    p.compressed(&mut out)
                } else {
                    p.uncompressed(&mut out)
                }
            }
            out
        })
        .collect();
    for c in chunks {
        h.update(&c);
    }
}

/// The challenge a first contribution answers (module documentation).
pub fn first_challenge(power: u32) -> [u8; 64] {
    let n = 1usize << power;
    let mut h = Blake2b::new();
    h.update(&blake2b::digest(&[]));
    let repeat = |h: &mut Blake2b, point: &[u8], count: usize| {
        const BATCH: usize = 1024;
        let batch: Vec<u8> = point.repeat(BATCH.min(count));
        let mut left = count;
        while left > 0 {
            let k = left.min(BATCH);
            h.update(&batch[..k * point.len()]);
            left -= k;
        }
    };
    let (mut g1, mut g2) = (Vec::new(), Vec::new());
    G1Affine::generator().uncompressed(&mut g1);
    G2Affine::generator().uncompressed(&mut g2);
    repeat(&mut h, &g1, 2 * n - 1);
    repeat(&mut h, &g2, n);
    repeat(&mut h, &g1, n);
    repeat(&mut h, &g1, n);
    repeat(&mut h, &g2, 1);
    h.finalize()
}

/// Writes the file of 2^`power` for `trapdoor` to `out` (through a temporary file beside it,
/// renamed at the end). `key_rng` draws the public key's blinding; `name` (64 bytes at most
/// are kept) labels the contribution. `progress` hears of each step.
pub fn generate<R: RngCore + CryptoRng>(
    power: u32,
    trapdoor: &Trapdoor,
    key_rng: &mut R,
    name: &str,
    out: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<Written, Error> {
    if !(1..=MAX_POWER).contains(&power) {
        return Err(Error::Invalid(format!(
            "--power must be between 1 and {MAX_POWER}, got {power}"
        )));
    }
    let n = 1usize << power;
    let Trapdoor { tau, alpha, beta } = *trapdoor;
    // Every G1 and G2 multiplication of the file, for the tables' window sizes.
    let g1 = Table::<G1Projective>::new(12 * n);
    let g2 = Table::<G2Projective>::new(3 * n);

    progress("phase 1: powers of tau");
    let phase1 = Phase1 {
        tau_g1: g1.mul(&scalars::powers(tau, Fr::one(), 2 * n - 1)),
        tau_g2: g2.mul(&scalars::powers(tau, Fr::one(), n)),
        alpha_tau_g1: g1.mul(&scalars::powers(tau, alpha, n)),
        beta_tau_g1: g1.mul(&scalars::powers(tau, beta, n)),
        beta_g2: g2.mul(&[beta]),
    };

    progress("contribution: hashes and public key");
    let challenge = first_challenge(power);
    let key = PublicKey([
        KeyPart::new(tau, 0, &challenge, key_rng),
        KeyPart::new(alpha, 1, &challenge, key_rng),
        KeyPart::new(beta, 2, &challenge, key_rng),
    ]);
    let mut response = Blake2b::new();
    response.update(&challenge);
    phase1.hash(&mut response, true);
    let partial = response.partial();
    let mut key_u = Vec::new();
    key.encode(
        &mut key_u,
        |p, o| p.uncompressed(o),
        |p, o| p.uncompressed(o),
    );
    response.update(&key_u);
    let response = response.finalize();
    let mut next = Blake2b::new();
    next.update(&response);
    phase1.hash(&mut next, false);
    let next_challenge = next.finalize();
    let contributions = contributions_section(&phase1, &key, &partial, &next_challenge, name);

    let bytes = measure::output::write_atomic_with(out, |file| -> Result<u64, Error> {
        let mut w = Writer::new(file, out);
        w.header(power)?;
        w.points(2, &phase1.tau_g1)?;
        w.points(3, &phase1.tau_g2)?;
        w.points(4, &phase1.alpha_tau_g1)?;
        w.points(5, &phase1.beta_tau_g1)?;
        w.points(6, &phase1.beta_g2)?;
        w.section(7, &contributions)?;
        drop(phase1);

        progress("phase 2: Lagrange bases");
        let lagrange = scalars::lagrange_sections(tau, power, false);
        w.points(
            12,
            &g1.mul(&scalars::lagrange_sections(tau, power + 1, true)),
        )?;
        w.points(13, &g2.mul(&lagrange))?;
        let scaled = |k: Fr| lagrange.par_iter().map(|l| *l * k).collect::<Vec<_>>();
        w.points(14, &g1.mul(&scaled(alpha)))?;
        w.points(15, &g1.mul(&scaled(beta)))?;
        Ok(w.bytes)
    })?;
    Ok(Written {
        bytes,
        first_challenge: challenge,
        response,
        next_challenge,
    })
}

/// The body of section 7 (module documentation).
fn contributions_section(
    phase1: &Phase1,
    key: &PublicKey,
    partial: &[u8; blake2b::PARTIAL_BYTES],
    next_challenge: &[u8; 64],
    name: &str,
) -> Vec<u8> {
    let mut c = Vec::new();
    c.extend_from_slice(&1u32.to_le_bytes());
    phase1.tau_g1[1].lem(&mut c);
    phase1.tau_g2[1].lem(&mut c);
    phase1.alpha_tau_g1[0].lem(&mut c);
    phase1.beta_tau_g1[0].lem(&mut c);
    phase1.beta_g2[0].lem(&mut c);
    key.encode(&mut c, |p, o| p.lem(o), |p, o| p.lem(o));
    c.extend_from_slice(partial);
    c.extend_from_slice(next_challenge);
    c.extend_from_slice(&0u32.to_le_bytes()); // type 0: a contribution, not a beacon
                                              // snarkjs keeps the first 64 UTF-16 units of a name; 64 bytes on a character boundary here.
    let mut end = name.len().min(64);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    let name = &name.as_bytes()[..end];
    let params: Vec<u8> = if name.is_empty() {
        Vec::new()
    } else {
        [&[1u8, name.len() as u8][..], name].concat()
    };
    c.extend_from_slice(&(params.len() as u32).to_le_bytes());
    c.extend_from_slice(&params);
    c
}

/// The file's sections, written in order.
struct Writer<'a> {
    w: &'a mut BufWriter<File>,
    path: &'a Path,
    bytes: u64,
}

impl<'a> Writer<'a> {
    /// Sections into `w` (the temporary file of [`measure::output::write_atomic_with`]);
    /// errors name `path`, the file being made.
    fn new(w: &'a mut BufWriter<File>, path: &'a Path) -> Self {
        Writer { w, path, bytes: 0 }
    }

    fn raw(&mut self, b: &[u8]) -> Result<(), Error> {
        self.bytes += b.len() as u64;
        self.w.write_all(b).map_err(|e| Error::io(self.path, e))
    }

    fn header(&mut self, power: u32) -> Result<(), Error> {
        self.raw(b"ptau")?;
        self.raw(&1u32.to_le_bytes())?;
        self.raw(&11u32.to_le_bytes())?;
        let mut h = Vec::new();
        h.extend_from_slice(&32u32.to_le_bytes());
        h.extend_from_slice(&ark_bn254::Fq::MODULUS.to_bytes_le());
        h.extend_from_slice(&power.to_le_bytes());
        h.extend_from_slice(&power.to_le_bytes());
        self.section(1, &h)
    }

    fn section(&mut self, ty: u32, body: &[u8]) -> Result<(), Error> {
        self.raw(&ty.to_le_bytes())?;
        self.raw(&(body.len() as u64).to_le_bytes())?;
        self.raw(body)
    }

    fn points<P: Encode>(&mut self, ty: u32, points: &[P]) -> Result<(), Error> {
        self.raw(&ty.to_le_bytes())?;
        self.raw(&((points.len() * P::BYTES) as u64).to_le_bytes())?;
        for chunk in points.chunks(ENCODE_CHUNK * 16) {
            let parts: Vec<Vec<u8>> = chunk
                .par_chunks(ENCODE_CHUNK)
                .map(|c| {
                    let mut out = Vec::with_capacity(c.len() * P::BYTES);
                    c.iter().for_each(|p| p.lem(&mut out));
                    out
                })
                .collect();
            for p in parts {
                self.raw(&p)?;
            }
        }
        Ok(())
    }
}
