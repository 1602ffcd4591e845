//! Shared by the integration tests: a small satisfiable circuit, its Groth16 key, and the
//! parties run as threads of the test process, each with its own certificate and its own
//! loopback TLS links.

#![allow(dead_code)]

pub mod cli;

use std::net::{SocketAddr, TcpListener};
use std::sync::OnceLock;

use ark_bn254::{Bn254, Fr};
use ark_groth16::ProvingKey;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use collab_groth16::dealer::{deal, Shares};
use collab_groth16::identity::{self, Certificate, Identity};
use collab_groth16::net::{Mesh, DEFAULT_TIMEOUT};
use collab_groth16::party::{prove, Online, Public};
use collab_groth16::qap::Qap;
use collab_groth16::tamper::Tamper;
use collab_groth16::{Error, Variant};
use zksnark_prover::synthetic::synthetic;
use zksnark_prover::{snark, R1cs};

pub struct Circuit {
    pub r1cs: R1cs<Fr>,
    pub w: Vec<Fr>,
    pub pk: ProvingKey<Bn254>,
    pub qap: Qap<Fr>,
}

impl Circuit {
    pub fn public_inputs(&self) -> Vec<Fr> {
        self.r1cs.public_inputs(&self.w)
    }

    pub fn verifies(&self, proof: &ark_groth16::Proof<Bn254>) -> bool {
        snark::verify(&self.pk.vk, proof, &self.public_inputs()).unwrap()
    }
}

/// 300 constraints, 3 public inputs (a domain of 512), with a fresh key. Generated once per test
/// binary.
pub fn circuit() -> &'static Circuit {
    static C: OnceLock<Circuit> = OnceLock::new();
    C.get_or_init(|| {
        let (r1cs, w) = synthetic::<Fr, _>(300, 3, &mut ChaCha20Rng::from_entropy());
        assert_eq!(r1cs.first_unsatisfied(&w), None);
        let pk = snark::setup(&r1cs, &mut ChaCha20Rng::from_entropy()).unwrap();
        let qap = Qap::new(&r1cs).unwrap();
        Circuit { r1cs, w, pk, qap }
    })
}

/// Runs `m` parties, each on its own thread with its own mesh, and returns each one's outcome.
pub fn run_parties(
    c: &Circuit,
    m: usize,
    variant: Variant,
    tamper: Option<Tamper>,
) -> Vec<Result<Online<Bn254>, Error>> {
    let inputs = c.public_inputs();
    let private = &c.w[c.qap.inputs()..];
    let materials = deal(
        private,
        c.qap.size() + 1,
        m,
        variant,
        &mut ChaCha20Rng::from_entropy(),
    );
    let listeners: Vec<TcpListener> = (0..m)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addrs: Vec<SocketAddr> = listeners.iter().map(|l| l.local_addr().unwrap()).collect();
    let ids: Vec<Identity> = (0..m).map(|_| identity::generate().unwrap()).collect();
    let certs: Vec<Certificate<'static>> = ids.iter().map(|i| i.cert.clone()).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = materials
            .iter()
            .zip(&listeners)
            .zip(&ids)
            .map(|((material, listener), me)| {
                let (addrs, inputs, certs) = (&addrs, &inputs, &certs);
                scope.spawn(move || {
                    let mut shares = Shares::expand(material);
                    if let Some(t) = tamper {
                        t.apply_to_shares(&mut shares)?;
                    }
                    let mut mesh =
                        Mesh::establish(material.id, me, certs, addrs, listener, DEFAULT_TIMEOUT)?;
                    let public = Public {
                        r1cs: &c.r1cs,
                        pk: &c.pk,
                        qap: &c.qap,
                        inputs,
                    };
                    prove(
                        &public,
                        &shares,
                        &mut mesh,
                        tamper,
                        &mut ChaCha20Rng::from_entropy(),
                        &mut |_| {},
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}
