//! The online phase of one party: from its preprocessed shares to the opened proof. One
//! function per step, named after the step's label in the report (see the table in the crate
//! docs).
//!
//! Notation: party `j` of `m` holds `[x]_j` with `sum_j [x]_j = x`. Public constants are added by
//! party 0 only. In the malicious variant each `[x]_j` comes with a MAC share `[alpha x]_j`, and
//! a public constant `c` adds `[alpha]_j c` to every party's MAC share.
//!
//! **Beaver multiplication.** With a dealt triple `[x], [y], [z = x y]`, the parties open
//! `d = a - x` and `e = b - y` (uniform: `x` and `y` are), then
//! `[a b]_j = [z]_j + d [y]_j + e [x]_j (+ d e for party 0)`, which sums to `a b`.
//!
//! **The terms of C that multiply two secrets.** After `A` and `B_1` are opened (safe: see the
//! crate docs), `s A` and `r B_1` are a secret times a public point, which each party computes on
//! its share; `r s delta_1` takes one more Beaver product (`[r s]`), opened in the same round as
//! the coset products. So
//! `[C]_j = [s]_j A + [r]_j B_1 - [r s]_j delta_1 + [sum h_i h_i + sum w_i l_i]_j`.
//!
//! **Malicious variant.** MACs are carried through every linear step that feeds an opened value:
//! the witness, the `a` and `b` coset evaluations (not `c`), the triples' `x` and `y`, `r`, `s`,
//! and `A` and `B_1`. All openings before `C` are checked ([`crate::maccheck`]) before `C` is
//! opened. `B_2` needs no MAC: once `B_1` is checked, `e(B_1, delta_2) = e(delta_1, B_2)` holds
//! for exactly one `B_2`, so a public pairing check catches any error in it. This saves the
//! MAC's G2 MSM, the most expensive of the MSMs. The products, `h` and `C` carry no MAC: they only enter `C`, and for given `A` and
//! `B` exactly one `C` verifies, so a party that deviates there can only make the proof fail
//! verification (which every party checks), whatever the witness is. This saves the MSMs of `h`
//! and `l` and the FFTs of `c` on MAC shares.

use std::time::Instant;

use ark_ec::pairing::Pairing;
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::{Field, One, PrimeField, UniformRand, Zero};
use ark_groth16::{Proof, ProvingKey};
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use zksnark_prover::R1cs;

use crate::codec::{Reader, Writer};
use crate::dealer::{MacShares, Shares};
use crate::groth16::{bigints, c_msm, query_msms};
use crate::maccheck::{self, Coin, Digest32, Opened, Transcript};
use crate::net::{Counters, Mesh};
use crate::qap::Qap;
use crate::share::sub;
use crate::tamper::{Fault, Tamper};
use crate::Error;

type Fr<E> = <E as Pairing>::ScalarField;

/// What every party knows: the constraint system, the proving key, the public inputs.
pub struct Public<'a, E: Pairing> {
    /// The circuit.
    pub r1cs: &'a R1cs<Fr<E>>,
    /// Its Groth16 proving key (its verifying key checks the joint proof).
    pub pk: &'a ProvingKey<E>,
    /// Its QAP domains.
    pub qap: &'a Qap<Fr<E>>,
    /// Wires `1..=public`, in order.
    pub inputs: &'a [Fr<E>],
}

/// CPU and wall time of one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// One of [`STEP_LABELS`].
    pub label: String,
    /// CPU seconds of the whole process (every thread) during the step.
    pub cpu_s: f64,
    /// Elapsed seconds.
    pub wall_s: f64,
}

/// The steps of the online phase, in order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Steps(pub Vec<Step>);

/// The labels of the online phase's steps, in order (`mac_check` in the malicious variant only).
pub const STEP_LABELS: [&str; 10] = [
    "randomisers",
    "qap_eval",
    "fft",
    "query_msm",
    "open_ab",
    "mac_check",
    "beaver",
    "quotient",
    "c_msm",
    "open_c",
];

/// Times each step, and tells `on_step` the label of each step as it starts.
struct Clock<'o> {
    steps: Steps,
    on_step: &'o mut dyn FnMut(&str),
}

impl Clock<'_> {
    fn time<T>(&mut self, label: &str, f: impl FnOnce() -> T) -> T {
        debug_assert!(STEP_LABELS.contains(&label), "{label} is a step label");
        (self.on_step)(label);
        let cpu = measure::clock::process_cpu_seconds();
        let wall = Instant::now();
        let out = f();
        self.steps.0.push(Step {
            label: label.to_string(),
            cpu_s: measure::clock::process_cpu_seconds() - cpu,
            wall_s: wall.elapsed().as_secs_f64(),
        });
        out
    }
}

/// The party's result: the proof (the same for every party), its steps and its traffic.
pub struct Online<E: Pairing> {
    /// The opened proof, a standard Groth16 proof.
    pub proof: Proof<E>,
    /// Each step's times.
    pub steps: Steps,
    /// What the party's mesh carried during the online phase.
    pub net: Counters,
}

/// A value share with its MAC share (the MAC is absent in the semi-honest variant).
#[derive(Clone, Copy)]
struct Auth<T> {
    value: T,
    mac: Option<T>,
}

/// The randomisers' shares, and the malicious variant's coin and first-round broadcasts.
struct Randomisers<E: Pairing> {
    r: Auth<Fr<E>>,
    s: Auth<Fr<E>>,
    coin: Option<(Coin, Vec<Digest32>)>,
    transcript: Transcript,
}

/// The coset evaluations of `a`, `b`, `c` (and the MACs of `a` and `b`).
struct Coset<F> {
    a: Vec<F>,
    b: Vec<F>,
    c: Vec<F>,
    a_mac: Option<Vec<F>>,
    b_mac: Option<Vec<F>>,
}

/// Shares of the proof's `A`, `B_1`, `B_2` (`B_2` has no MAC: see the module docs).
struct Points<E: Pairing> {
    a: Auth<E::G1>,
    b1: Auth<E::G1>,
    b2: E::G2,
}

/// What the first opening reveals.
struct OpenedAb<E: Pairing> {
    d: Vec<Fr<E>>,
    e: Vec<Fr<E>>,
    /// `r - x_N` and `s - y_N`: the Beaver openings for `r s`.
    d_rs: Fr<E>,
    e_rs: Fr<E>,
    a: E::G1,
    b1: E::G1,
    b2: E::G2,
}

/// Runs the online phase of party `mesh.id()`. `shares` are its preprocessed shares (a
/// preprocessing fault is already applied by the caller); `tamper` may name an online fault;
/// `on_step` hears each step's label as the step starts.
pub fn prove<E: Pairing, R: RngCore + CryptoRng>(
    public: &Public<E>,
    shares: &Shares<Fr<E>>,
    mesh: &mut Mesh,
    tamper: Option<Tamper>,
    rng: &mut R,
    on_step: &mut dyn FnMut(&str),
) -> Result<Online<E>, Error> {
    let id = mesh.id();
    assert_eq!(
        id, shares.id,
        "the mesh and the shares belong to the same party"
    );
    let start = mesh.counters();
    let mut steps = Clock {
        steps: Steps::default(),
        on_step,
    };
    let n = public.qap.size();
    if shares.x.len() != n + 1 || shares.w.len() + public.qap.inputs() != public.r1cs.n_wires {
        return Err(Error::Invalid(format!(
            "party {id}: preprocessing for another circuit ({} triples for a domain of {n})",
            shares.x.len()
        )));
    }
    let mac = shares.mac.as_ref();

    let rand = steps.time("randomisers", || randomisers::<E, R>(shares, mesh, rng))?;
    let (w, w_mac) = full_assignment(public, shares);
    let mut coset = steps.time("qap_eval", || qap_eval(public, &w, w_mac.as_deref()));
    steps.time("fft", || fft(public.qap, &mut coset));
    let w_big = bigints(&w);
    let points = steps.time("query_msm", || {
        query_msm(public.pk, id, &w_big, w_mac.as_deref(), mac, &rand, tamper)
    });
    let mut transcript = rand.transcript;
    let opened = steps.time("open_ab", || {
        open_ab::<E>(mesh, shares, &coset, &rand.r, &rand.s, &points)
    })?;
    if let (Some(mac), Some((coin, commitments))) = (mac, rand.coin.as_ref()) {
        steps.time("mac_check", || {
            mac_check(
                mesh,
                public.pk,
                mac,
                &coset,
                &rand.r,
                &rand.s,
                &points,
                &opened,
                coin,
                commitments,
                &mut transcript,
                rng,
            )
        })?;
    }
    let (ab, rs) = steps.time("beaver", || beaver::<E>(id, shares, &opened, coset.a));
    let h = steps.time("quotient", || public.qap.quotient(ab, &coset.c));
    let c_lin = steps.time("c_msm", || {
        c_msm(public.pk, &w_big, public.qap.inputs(), &h)
    });
    let proof = steps.time("open_c", || {
        open_c::<E>(
            mesh,
            public.pk,
            &opened,
            rand.r.value,
            rand.s.value,
            rs,
            c_lin,
            tamper,
        )
    })?;
    Ok(Online {
        proof,
        steps: steps.steps,
        net: mesh.counters().since(&start),
    })
}

/// The party's share of the full assignment (and of its MAC): the public wires, which party 0
/// holds (MAC shares: `[alpha]_j` times the public value), then its share of the private wires.
fn full_assignment<E: Pairing>(
    public: &Public<E>,
    shares: &Shares<Fr<E>>,
) -> (Vec<Fr<E>>, Option<Vec<Fr<E>>>) {
    let mut instance = vec![Fr::<E>::one()];
    instance.extend_from_slice(public.inputs);
    let own = |v: &[Fr<E>]| -> Vec<Fr<E>> {
        if shares.id == 0 {
            v.to_vec()
        } else {
            vec![Fr::<E>::zero(); v.len()]
        }
    };
    let mut w = own(&instance);
    w.extend_from_slice(&shares.w);
    let w_mac = shares.mac.as_ref().map(|m| {
        let mut v: Vec<Fr<E>> = instance.iter().map(|x| m.key * x).collect();
        v.extend_from_slice(&m.w);
        v
    });
    (w, w_mac)
}

/// `randomisers`: the shares of `r` and `s`.
///
/// Semi-honest: each party's shares are its own uniform picks; `r = sum_j r_j` is uniform and
/// unknown to any `m - 1` parties, and to the dealer. Malicious: each party `k` still picks
/// `r_k`, `s_k`, and authenticates them with its dealt masks: it broadcasts
/// `eps = r_k - rho_k`, and everyone adds `eps` to its share of `[rho_k]` (the MAC shares follow),
/// so `[r] = sum_k ([rho_{r,k}] + eps_{r,k})`. The same round carries each party's commitment to
/// its coin for the MAC check's challenges.
fn randomisers<E: Pairing, R: RngCore + CryptoRng>(
    shares: &Shares<Fr<E>>,
    mesh: &mut Mesh,
    rng: &mut R,
) -> Result<Randomisers<E>, Error> {
    let transcript = Transcript::default();
    let Some(mac) = shares.mac.as_ref() else {
        return Ok(Randomisers {
            r: Auth {
                value: Fr::<E>::rand(rng),
                mac: None,
            },
            s: Auth {
                value: Fr::<E>::rand(rng),
                mac: None,
            },
            coin: None,
            transcript,
        });
    };
    let id = shares.id;
    let m = shares.parties;
    let (r_own, s_own) = (Fr::<E>::rand(rng), Fr::<E>::rand(rng));
    let eps_own = [r_own - mac.own_masks[0], s_own - mac.own_masks[1]];
    let coin = Coin::new(rng);
    let mut w = Writer::new();
    w.put(&eps_own.to_vec()).put(&coin.committed.commitment);
    let received = mesh.broadcast(&w.finish())?;

    let mut eps = vec![eps_own; m];
    let mut commitments = vec![coin.committed.commitment; m];
    for k in (0..m).filter(|&k| k != id) {
        let mut r = Reader::new(&received[k], format!("party {k}'s randomiser round"));
        let e: Vec<Fr<E>> = r.get_vec(2)?;
        eps[k] = [e[0], e[1]];
        commitments[k] = r.get()?;
        r.finish()?;
    }
    let mut transcript = transcript;
    transcript.absorb(&eps.iter().flatten().copied().collect::<Vec<_>>());
    let authenticated = |which: usize| {
        let eps_sum: Fr<E> = eps.iter().map(|e| e[which]).sum();
        let rho: Fr<E> = (0..m).map(|k| mac.masks[2 * k + which]).sum();
        let rho_mac: Fr<E> = (0..m).map(|k| mac.mask_macs[2 * k + which]).sum();
        Auth {
            value: rho + if id == 0 { eps_sum } else { Fr::<E>::zero() },
            mac: Some(rho_mac + mac.key * eps_sum),
        }
    };
    Ok(Randomisers {
        r: authenticated(0),
        s: authenticated(1),
        coin: Some((coin, commitments)),
        transcript,
    })
}

/// `qap_eval`: the party's share of the A, B, C rows (and MAC shares of A and B).
fn qap_eval<E: Pairing>(public: &Public<E>, w: &[Fr<E>], w_mac: Option<&[Fr<E>]>) -> Coset<Fr<E>> {
    let (qap, r1cs) = (public.qap, public.r1cs);
    Coset {
        a: qap.a_rows(r1cs, w),
        b: qap.b_rows(r1cs, w),
        c: qap.c_rows(r1cs, w),
        a_mac: w_mac.map(|w| qap.a_rows(r1cs, w)),
        b_mac: w_mac.map(|w| qap.b_rows(r1cs, w)),
    }
}

/// `fft`: every row vector from the domain to the coset.
fn fft<F: PrimeField>(qap: &Qap<F>, coset: &mut Coset<F>) {
    let mut all: Vec<&mut Vec<F>> = vec![&mut coset.a, &mut coset.b, &mut coset.c];
    all.extend(coset.a_mac.iter_mut());
    all.extend(coset.b_mac.iter_mut());
    for v in all {
        qap.to_coset(v);
    }
}

/// `query_msm`: shares of `A = alpha_1 + sum w_i a_i + r delta_1`, and of `B` in G1 and G2 (with
/// `s`), and their MAC shares.
fn query_msm<E: Pairing>(
    pk: &ProvingKey<E>,
    id: usize,
    w: &[<Fr<E> as PrimeField>::BigInt],
    w_mac: Option<&[Fr<E>]>,
    mac: Option<&MacShares<Fr<E>>>,
    rand: &Randomisers<E>,
    tamper: Option<Tamper>,
) -> Points<E> {
    let (r, s) = (rand.r, rand.s);
    let (a_w, b1_w, b2_w) = query_msms(pk, w);
    // Public constants: party 0 adds them to its value share; every party adds [alpha]_j times
    // them to its MAC share.
    let first = if id == 0 {
        Fr::<E>::one()
    } else {
        Fr::<E>::zero()
    };
    let a = a_w
        + pk.vk.alpha_g1 * first
        + pk.delta_g1 * r.value
        + Tamper::point_shift::<E::G1>(tamper, id, Fault::AShare);
    let b1 = b1_w + pk.beta_g1 * first + pk.delta_g1 * s.value;
    let b2 = b2_w
        + pk.vk.beta_g2 * first
        + pk.vk.delta_g2 * s.value
        + Tamper::point_shift::<E::G2>(tamper, id, Fault::BShare);
    let macs = mac.zip(w_mac).map(|(mac, w_mac)| {
        let w_mac = bigints(w_mac);
        let k = mac.key;
        (
            E::G1::msm_bigint(&pk.a_query, &w_mac)
                + pk.vk.alpha_g1 * k
                + pk.delta_g1 * r.mac.expect("authenticated r"),
            E::G1::msm_bigint(&pk.b_g1_query, &w_mac)
                + pk.beta_g1 * k
                + pk.delta_g1 * s.mac.expect("authenticated s"),
        )
    });
    Points {
        a: Auth {
            value: a,
            mac: macs.map(|m| m.0),
        },
        b1: Auth {
            value: b1,
            mac: macs.map(|m| m.1),
        },
        b2,
    }
}

/// `open_ab`: one round that opens `d = a - x`, `e = b - y` on the coset, `r - x_N` and
/// `s - y_N`, and `A`, `B_1`, `B_2`.
fn open_ab<E: Pairing>(
    mesh: &mut Mesh,
    shares: &Shares<Fr<E>>,
    coset: &Coset<Fr<E>>,
    r: &Auth<Fr<E>>,
    s: &Auth<Fr<E>>,
    points: &Points<E>,
) -> Result<OpenedAb<E>, Error> {
    let n = coset.a.len();
    let mut d = sub(&coset.a, &shares.x[..n]);
    let mut e = sub(&coset.b, &shares.y[..n]);
    let mut d_rs = r.value - shares.x[n];
    let mut e_rs = s.value - shares.y[n];
    let (mut a, mut b1, mut b2) = (points.a.value, points.b1.value, points.b2);
    let mut w = Writer::new();
    w.put(&d)
        .put(&e)
        .put(&d_rs)
        .put(&e_rs)
        .put(&a)
        .put(&b1)
        .put(&b2);
    let received = mesh.broadcast(&w.finish())?;
    for (k, body) in received.iter().enumerate() {
        if k == mesh.id() {
            continue;
        }
        let mut r = Reader::new(body, format!("party {k}'s opening of the coset products"));
        let dk: Vec<Fr<E>> = r.get_vec(n)?;
        let ek: Vec<Fr<E>> = r.get_vec(n)?;
        add_into(&mut d, &dk);
        add_into(&mut e, &ek);
        d_rs += r.get::<Fr<E>>()?;
        e_rs += r.get::<Fr<E>>()?;
        a += r.get::<E::G1>()?;
        b1 += r.get::<E::G1>()?;
        b2 += r.get::<E::G2>()?;
        r.finish()?;
    }
    Ok(OpenedAb {
        d,
        e,
        d_rs,
        e_rs,
        a,
        b1,
        b2,
    })
}

fn add_into<F: Field>(acc: &mut [F], v: &[F]) {
    acc.par_iter_mut()
        .zip(v.par_iter())
        .for_each(|(a, b)| *a += b);
}

/// `mac_check`: the SPDZ check of every value opened so far (see [`crate::maccheck`]), then the
/// pairing check of `B_2` against the checked `B_1`. The views are known to agree by then, so
/// every honest party reaches the same verdict.
#[allow(clippy::too_many_arguments)]
fn mac_check<E: Pairing, R: RngCore + CryptoRng>(
    mesh: &mut Mesh,
    pk: &ProvingKey<E>,
    mac: &MacShares<Fr<E>>,
    coset: &Coset<Fr<E>>,
    r: &Auth<Fr<E>>,
    s: &Auth<Fr<E>>,
    points: &Points<E>,
    opened: &OpenedAb<E>,
    coin: &Coin,
    coin_commitments: &[Digest32],
    transcript: &mut Transcript,
    rng: &mut R,
) -> Result<(), Error> {
    let n = opened.d.len();
    fn macs<F>(v: &Option<Vec<F>>) -> &[F] {
        v.as_deref().expect("malicious variant has MACs")
    }
    let mut field = opened.d.clone();
    field.extend_from_slice(&opened.e);
    field.extend([opened.d_rs, opened.e_rs]);
    let mut field_macs = sub(macs(&coset.a_mac), &mac.x[..n]);
    field_macs.extend(sub(macs(&coset.b_mac), &mac.y[..n]));
    field_macs.extend([
        r.mac.expect("authenticated r") - mac.x[n],
        s.mac.expect("authenticated s") - mac.y[n],
    ]);
    let view = Opened::<E> {
        field,
        field_macs,
        g1: vec![opened.a, opened.b1],
        g1_macs: vec![
            points.a.mac.expect("MAC of A"),
            points.b1.mac.expect("MAC of B"),
        ],
    };
    transcript.absorb(&view.field);
    transcript.absorb(&view.g1);
    transcript.absorb(&opened.b2);
    maccheck::check(
        mesh,
        mac.key,
        &view,
        coin,
        coin_commitments,
        transcript.digest(),
        rng,
    )?;
    if E::pairing(opened.b1, pk.vk.delta_g2) != E::pairing(pk.delta_g1, opened.b2) {
        return Err(Error::Abort(
            "B in G2 does not match the MAC-checked B in G1 (pairing check)".into(),
        ));
    }
    Ok(())
}

/// `beaver`: shares of the coset products `a b` and of `r s` from the opened `d`, `e`.
fn beaver<E: Pairing>(
    id: usize,
    shares: &Shares<Fr<E>>,
    opened: &OpenedAb<E>,
    mut a: Vec<Fr<E>>,
) -> (Vec<Fr<E>>, Fr<E>) {
    let n = a.len();
    let product = |i: usize, d: Fr<E>, e: Fr<E>| {
        let mut v = shares.z[i] + d * shares.y[i] + e * shares.x[i];
        if id == 0 {
            v += d * e;
        }
        v
    };
    // The share of a is no longer needed: its buffer takes the products.
    a.par_iter_mut()
        .enumerate()
        .for_each(|(i, out)| *out = product(i, opened.d[i], opened.e[i]));
    let rs = product(n, opened.d_rs, opened.e_rs);
    (a, rs)
}

/// `open_c`: the share of `C = s A + r B_1 - r s delta_1 + (h and l sums)`, opened, and the
/// proof.
#[allow(clippy::too_many_arguments)]
fn open_c<E: Pairing>(
    mesh: &mut Mesh,
    pk: &ProvingKey<E>,
    opened: &OpenedAb<E>,
    r: Fr<E>,
    s: Fr<E>,
    rs: Fr<E>,
    c_lin: E::G1,
    tamper: Option<Tamper>,
) -> Result<Proof<E>, Error> {
    let id = mesh.id();
    let mut c = opened.a * s + opened.b1 * r - pk.delta_g1 * rs
        + c_lin
        + Tamper::point_shift::<E::G1>(tamper, id, Fault::CShare);
    let mut w = Writer::new();
    w.put(&c);
    let received = mesh.broadcast(&w.finish())?;
    for (k, body) in received.iter().enumerate() {
        if k == id {
            continue;
        }
        let mut r = Reader::new(body, format!("party {k}'s share of C"));
        c += r.get::<E::G1>()?;
        r.finish()?;
    }
    Ok(Proof {
        a: opened.a.into_affine(),
        b: opened.b2.into_affine(),
        c: c.into_affine(),
    })
}
