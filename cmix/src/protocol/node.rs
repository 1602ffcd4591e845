//! One node's part of a batch: one function per protocol step, named after its report label.
//! The functions take and return wire bytes, so what a node computes per phase includes reading
//! and checking what it received and serialising what it sends (both counted operations); the
//! process layer only moves the bytes.
//!
//! Notation: `beta` slots of `width` elements; node `i` holds `r_i, s_i` (one element per slot
//! element) and a permutation `pi_i` of the slots; ElGamal under the joint key `d`:
//! `E(v) = (g^t, v d^t)`.
//!
//! | step | node `i` computes |
//! |---|---|
//! | prepre | `E(r_i^-1)` per element, times the predecessor's product: the last node ends with `E(R^-1)` |
//! | premix | slot `j` moves to `pi_i(j)` and is multiplied by a fresh `E(s_i^-1)`: the last node ends with `E(pi(R)^-1 S^-1)` |
//! | prepost | decryption share `D_i = c^-x_i` of each output slot, and its tag hash |
//! | realpre | slot `j` times `k_ij^-1 r_i` (the client's key removed, `r_i` put in) |
//! | realmix | slot `j` moves to `pi_i(j)` and is multiplied by `s_i` |
//! | realpost | (last node) commits to the mixed slots, checks every node's shares against its tag hashes, multiplies by the precomputed message component and all shares: the messages |

use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::group::{Group, Op};
use crate::protocol::keys::{message_key, NodeSecret};
use crate::protocol::message;
use crate::protocol::tamper::Tamper;
use crate::Error;

/// Elements per parallel work unit (each gets its own RNG stream).
const CHUNK: usize = 32;

/// Reads `count` elements from `bytes`, in parallel.
pub fn elems_read_wire<G: Group>(
    g: &G,
    bytes: &[u8],
    count: usize,
    what: &'static str,
) -> Result<Vec<G::Elem>, Error> {
    let w = g.wire_bytes();
    if bytes.len() != count * w {
        return Err(Error::Length {
            what,
            got: bytes.len(),
            want: count * w,
        });
    }
    bytes
        .par_chunks(w)
        .with_min_len(CHUNK)
        .map(|c| g.read_wire(c))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| Error::Received {
            what,
            source: Box::new(source),
        })
}

/// Serialises elements, in parallel.
pub fn elems_write_wire<G: Group>(g: &G, elems: &[G::Elem]) -> Vec<u8> {
    let parts: Vec<Vec<u8>> = elems
        .par_chunks(CHUNK)
        .map(|c| {
            let mut out = Vec::with_capacity(c.len() * g.wire_bytes());
            for e in c {
                g.write_wire(e, &mut out);
            }
            out
        })
        .collect();
    parts.concat()
}

/// `n` values from `f(index, rng)`, in parallel chunks with their own RNG streams drawn from
/// `rng`.
fn par_gen<T: Send, F>(n: usize, rng: &mut ChaCha20Rng, f: F) -> Vec<T>
where
    F: Fn(usize, &mut ChaCha20Rng) -> T + Sync,
{
    let seeds: Vec<[u8; 32]> = (0..n.div_ceil(CHUNK))
        .map(|_| {
            let mut s = [0u8; 32];
            rng.fill_bytes(&mut s);
            s
        })
        .collect();
    let parts: Vec<Vec<T>> = seeds
        .par_iter()
        .enumerate()
        .map(|(c, seed)| {
            let mut r = ChaCha20Rng::from_seed(*seed);
            (c * CHUNK..((c + 1) * CHUNK).min(n))
                .map(|i| f(i, &mut r))
                .collect()
        })
        .collect();
    parts.into_iter().flatten().collect()
}

/// SHA-256 of a slot's wire bytes under a domain, round, node and slot: the tag hashes of the
/// precomputation and the commitments of the real-time phase. Counts its 64-byte blocks.
pub fn slot_hash<G: Group>(
    g: &G,
    domain: &[u8],
    round: u64,
    node: usize,
    slot: usize,
    wire: &[u8],
) -> [u8; 32] {
    let len = domain.len() + 24 + wire.len();
    g.ops().add(Op::HashBlock, (len as u64 + 9).div_ceil(64));
    let mut h = Sha256::new();
    h.update(domain);
    h.update(round.to_le_bytes());
    h.update((node as u64).to_le_bytes());
    h.update((slot as u64).to_le_bytes());
    h.update(wire);
    h.finalize().into()
}

const SHARE_TAG: &[u8] = b"cmix precomputation share tag";
const COMMITMENT: &[u8] = b"cmix real-time commitment";

/// One node's state for one batch.
pub struct Node<'g, G: Group> {
    /// The group.
    pub g: &'g G,
    /// This node's index.
    pub id: usize,
    /// The number of nodes.
    pub nodes: usize,
    secret: NodeSecret<G>,
    joint: G::Table,
    /// Registered clients' shared keys, by client id.
    clients: Vec<Option<[u8; 32]>>,
    rng: ChaCha20Rng,
    tamper: Option<Tamper>,
    /// The batch's round number, which the clients' per-round keys depend on.
    pub round: u64,
    /// The batch's slots.
    pub beta: usize,
    /// Elements per slot.
    pub width: usize,
    pub(crate) r: Vec<G::Elem>,
    pub(crate) s: Vec<G::Elem>,
    pub(crate) pi: Vec<u32>,
    shares: Vec<G::Elem>,
    /// The last node's: the precomputed message components, every node's share tags, the
    /// mixed real-time slots and their wire form and commitments.
    pub(crate) m_comp: Vec<G::Elem>,
    c_last: Vec<G::Elem>,
    share_tags: Vec<Vec<[u8; 32]>>,
    v: Vec<G::Elem>,
    v_wire: Vec<u8>,
    commitments: Vec<[u8; 32]>,
}

impl<'g, G: Group> Node<'g, G> {
    /// Node `id` of `nodes`, with its secret and the joint key (a fixed-base table of it is
    /// made here, once for every batch).
    pub fn new(
        g: &'g G,
        id: usize,
        nodes: usize,
        secret: NodeSecret<G>,
        joint: &G::Elem,
        seed: [u8; 32],
        tamper: Option<Tamper>,
    ) -> Self {
        Node {
            g,
            id,
            nodes,
            secret,
            joint: g.table(joint),
            clients: vec![],
            rng: ChaCha20Rng::from_seed(seed),
            tamper: Tamper::at(tamper, id),
            round: 0,
            beta: 0,
            width: 0,
            r: vec![],
            s: vec![],
            pi: vec![],
            shares: vec![],
            m_comp: vec![],
            c_last: vec![],
            share_tags: vec![vec![]; nodes],
            v: vec![],
            v_wire: vec![],
            commitments: vec![],
        }
    }

    /// Whether this is the last node, which decrypts and delivers.
    pub fn is_last(&self) -> bool {
        self.id == self.nodes - 1
    }

    fn len(&self) -> usize {
        self.beta * self.width
    }

    /// Registration of client `client` (its public value `A_j` in wire form): the node's side
    /// of the Diffie-Hellman exchange and the shared key.
    pub fn register(
        &mut self,
        client: u32,
        client_pub: &[u8],
        node_pub: &G::Elem,
    ) -> Result<(), Error> {
        let a = self
            .g
            .read_wire(client_pub)
            .map_err(|source| Error::Received {
                what: "a client's public value",
                source: Box::new(source),
            })?;
        let dh = self.g.exp(&a, &self.secret.b);
        let k = crate::protocol::keys::shared_key(self.g, self.id, client, &dh, &a, node_pub);
        let c = client as usize;
        if self.clients.len() <= c {
            self.clients.resize(c + 1, None);
        }
        self.clients[c] = Some(k);
        Ok(())
    }

    /// Starts batch `round` of `beta` slots of `width` elements.
    pub fn start_round(&mut self, round: u64, beta: usize, width: usize) {
        self.round = round;
        self.beta = beta;
        self.width = width;
        self.share_tags = vec![vec![]; self.nodes];
    }

    /// Fresh ElGamal encryptions of `values` under the joint key.
    fn encrypt(&mut self, values: &[G::Elem]) -> (Vec<G::Elem>, Vec<G::Elem>) {
        let (g, joint) = (self.g, &self.joint);
        let pairs = par_gen(values.len(), &mut self.rng, |i, rng| {
            let t = g.random_scalar(rng);
            (g.exp_g(&t), g.mul(&values[i], &g.exp_table(joint, &t)))
        });
        pairs.into_iter().unzip()
    }

    /// prepre: `E(r_i^-1)` per element, multiplied into the predecessor's product (wire form
    /// `c || m`); returns the product's wire form.
    pub fn prepre(&mut self, incoming: Option<&[u8]>) -> Result<Vec<u8>, Error> {
        let n = self.len();
        let prev = incoming
            .map(|b| elems_read_wire(self.g, b, 2 * n, "precomputation product"))
            .transpose()?;
        let g = self.g;
        self.r = par_gen(n, &mut self.rng, |_, rng| g.random_elem(rng));
        let mut r_inv = self.r.clone();
        g.batch_invert(&mut r_inv);
        let (mut c, mut m) = self.encrypt(&r_inv);
        if let Some(prev) = prev {
            let (pc, pm) = prev.split_at(n);
            c.par_iter_mut()
                .zip(pc)
                .with_min_len(CHUNK)
                .for_each(|(a, b)| g.mul_assign(a, b));
            m.par_iter_mut()
                .zip(pm)
                .with_min_len(CHUNK)
                .for_each(|(a, b)| g.mul_assign(a, b));
        }
        c.append(&mut m);
        Ok(elems_write_wire(g, &c))
    }

    /// premix: permutes the slots of the incoming ciphertexts and multiplies each by a fresh
    /// `E(s_i^-1)`. The last node keeps the message components and returns the random
    /// components, which every node needs for its decryption share.
    pub fn premix(&mut self, incoming: &[u8]) -> Result<Vec<u8>, Error> {
        let (n, w) = (self.len(), self.width);
        let input = elems_read_wire(self.g, incoming, 2 * n, "precomputation mix")?;
        let g = self.g;
        self.s = par_gen(n, &mut self.rng, |_, rng| g.random_elem(rng));
        let mut pi: Vec<u32> = (0..self.beta as u32).collect();
        pi.shuffle(&mut self.rng);
        self.pi = pi;
        let mut s_inv = self.s.clone();
        g.batch_invert(&mut s_inv);
        let (ec, em) = self.encrypt(&s_inv);
        // Output position p takes input slot j = pi^-1(p).
        let mut from = vec![0usize; self.beta];
        for (j, &p) in self.pi.iter().enumerate() {
            from[p as usize] = j;
        }
        let (ic, im) = input.split_at(n);
        let out_c: Vec<G::Elem> = (0..n)
            .into_par_iter()
            .with_min_len(CHUNK)
            .map(|k| g.mul(&ic[from[k / w] * w + k % w], &ec[k]))
            .collect();
        let out_m: Vec<G::Elem> = (0..n)
            .into_par_iter()
            .with_min_len(CHUNK)
            .map(|k| g.mul(&im[from[k / w] * w + k % w], &em[k]))
            .collect();
        if self.is_last() {
            self.m_comp = out_m;
            let mut wire = elems_write_wire(g, &out_c);
            self.c_last = out_c;
            self.corrupt(&mut wire);
            Ok(wire)
        } else {
            let mut all = out_c;
            all.extend(out_m);
            let mut wire = elems_write_wire(g, &all);
            self.corrupt(&mut wire);
            Ok(wire)
        }
    }

    fn corrupt(&self, wire: &mut [u8]) {
        if let Some(Tamper::Element { .. }) = self.tamper {
            // A value that is no group element: 0xff.. is not a canonical curve encoding and
            // lies above the 2048-bit prime.
            let w = self.g.wire_bytes();
            wire[..w].fill(0xff);
        }
    }

    /// prepost: this node's decryption shares `D_i = c^-x_i` of the random components `c`
    /// (wire form, from the last node; the last node uses its own, `None`).
    pub fn prepost(&mut self, c_wire: Option<&[u8]>) -> Result<(), Error> {
        let g = self.g;
        let c = match c_wire {
            Some(b) => elems_read_wire(g, b, self.len(), "precomputed random components")?,
            None => std::mem::take(&mut self.c_last),
        };
        let x = &self.secret.x;
        let mut d: Vec<G::Elem> = c
            .par_iter()
            .with_min_len(CHUNK)
            .map(|ci| g.exp(ci, x))
            .collect();
        // One inversion for all: c^x_i then inverted, rather than c^(q - x_i), keeps the
        // exponent short where exponents are.
        par_batch_invert(g, &mut d);
        self.shares = d;
        Ok(())
    }

    /// The tag hashes of this node's decryption shares, one per output slot (`32 beta`
    /// bytes), sent to the last node in the precomputation.
    pub fn prepost_tags(&self) -> Vec<u8> {
        let (g, w) = (self.g, self.width);
        let tags: Vec<[u8; 32]> = self
            .shares
            .par_chunks(w)
            .enumerate()
            .map(|(slot, elems)| {
                let mut wire = Vec::with_capacity(w * g.wire_bytes());
                for e in elems {
                    g.write_wire(e, &mut wire);
                }
                slot_hash(g, SHARE_TAG, self.round, self.id, slot, &wire)
            })
            .collect();
        tags.concat()
    }

    /// The last node stores node `node`'s share tags.
    pub fn keep_share_tags(&mut self, node: usize, tags: &[u8]) -> Result<(), Error> {
        self.share_tags[node] = self.slot_hashes("share tags", tags)?;
        Ok(())
    }

    /// One 32-byte hash per slot, read from `bytes`.
    fn slot_hashes(&self, what: &'static str, bytes: &[u8]) -> Result<Vec<[u8; 32]>, Error> {
        if bytes.len() != 32 * self.beta {
            return Err(Error::Length {
                what,
                got: bytes.len(),
                want: 32 * self.beta,
            });
        }
        Ok(bytes
            .chunks(32)
            .map(|c| c.try_into().expect("32 bytes"))
            .collect())
    }

    /// realpre: the slots (`u32` sender ids, then the elements) times `k_ij^-1 r_i`; returns
    /// the same layout. The first node reads the clients' values, the others their
    /// predecessor's.
    pub fn realpre(&self, incoming: &[u8]) -> Result<Vec<u8>, Error> {
        let (g, n, w) = (self.g, self.len(), self.width);
        if incoming.len() < 4 * self.beta {
            return Err(Error::Length {
                what: "real-time input",
                got: incoming.len(),
                want: 4 * self.beta + n * g.wire_bytes(),
            });
        }
        let (ids, elems) = incoming.split_at(4 * self.beta);
        let senders: Vec<u32> = ids
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let keys: Vec<&[u8; 32]> = senders
            .iter()
            .map(|&s| {
                self.clients
                    .get(s as usize)
                    .and_then(|k| k.as_ref())
                    .ok_or(Error::UnknownSender(s))
            })
            .collect::<Result<_, _>>()?;
        let mut values = elems_read_wire(g, elems, n, "real-time input")?;
        let mut k: Vec<G::Elem> = (0..n)
            .into_par_iter()
            .with_min_len(CHUNK)
            .map(|i| message_key(g, keys[i / w], self.round, (i % w) as u32))
            .collect();
        par_batch_invert(g, &mut k);
        values
            .par_iter_mut()
            .zip(k.par_iter().zip(&self.r))
            .with_min_len(CHUNK)
            .for_each(|(v, (ki, ri))| {
                g.mul_assign(v, ki);
                g.mul_assign(v, ri);
            });
        if let Some(Tamper::Tag { slot, .. }) = self.tamper {
            g.mul_assign(&mut values[slot * w], &crate::protocol::tamper::tag(g));
        }
        let mut out = ids.to_vec();
        out.extend(elems_write_wire(g, &values));
        Ok(out)
    }

    /// realmix: the slots permuted by `pi_i` and multiplied by `s_i`. The last node keeps the
    /// result for the postprocessing and returns nothing.
    pub fn realmix(&mut self, incoming: &[u8]) -> Result<Vec<u8>, Error> {
        let (g, n, w) = (self.g, self.len(), self.width);
        let input = elems_read_wire(g, incoming, n, "real-time mix")?;
        let mut from = vec![0usize; self.beta];
        for (j, &p) in self.pi.iter().enumerate() {
            from[p as usize] = j;
        }
        let out: Vec<G::Elem> = (0..n)
            .into_par_iter()
            .with_min_len(CHUNK)
            .map(|k| g.mul(&input[from[k / w] * w + k % w], &self.s[k]))
            .collect();
        if self.is_last() {
            self.v = out;
            Ok(vec![])
        } else {
            Ok(elems_write_wire(g, &out))
        }
    }

    /// realpost, first part (last node): commitments to the mixed slots, one hash per slot,
    /// sent to the other nodes before any of them releases a decryption share.
    pub fn realpost_commit(&mut self) -> Vec<u8> {
        let (g, w, wb) = (self.g, self.width, self.g.wire_bytes());
        self.v_wire = elems_write_wire(g, &self.v);
        self.commitments = self
            .v_wire
            .par_chunks(w * wb)
            .enumerate()
            .map(|(slot, bytes)| slot_hash(g, COMMITMENT, self.round, self.id, slot, bytes))
            .collect();
        if let Some(Tamper::Opening { slot }) = self.tamper {
            // Committed; now the last node "untags" slot `slot` before opening.
            let tag = g.exp_g(&g.challenge_scalar(&[2; 16]));
            g.mul_assign(&mut self.v[slot * w], &tag);
            let mut e = vec![];
            g.write_wire(&self.v[slot * w], &mut e);
            self.v_wire[slot * w * wb..(slot * w + 1) * wb].copy_from_slice(&e);
        }
        self.commitments.concat()
    }

    /// The other nodes keep the commitments they received.
    pub fn keep_commitments(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.commitments = self.slot_hashes("commitments", bytes)?;
        Ok(())
    }

    /// This node's decryption shares in wire form, released once it holds the commitments.
    pub fn release_shares(&self) -> Vec<u8> {
        let mut wire = elems_write_wire(self.g, &self.shares);
        if let Some(Tamper::Share { slot, .. }) = self.tamper {
            let g = self.g;
            let other = g.mul(
                &self.shares[slot * self.width],
                &g.exp_g(&g.challenge_scalar(&[3; 16])),
            );
            let mut e = vec![];
            g.write_wire(&other, &mut e);
            let wb = g.wire_bytes();
            wire[slot * self.width * wb..(slot * self.width + 1) * wb].copy_from_slice(&e);
        }
        wire
    }

    /// realpost tag check (last node): node `node`'s released shares against its tag hashes.
    pub fn check_share_tags(&self, node: usize, wire: &[u8]) -> Result<(), Error> {
        let tags = &self.share_tags[node];
        match self.first_unlike("decryption shares", wire, SHARE_TAG, node, tags)? {
            Some(slot) => Err(Error::ShareTag { node, slot }),
            None => Ok(()),
        }
    }

    /// The first slot of `wire` (all slots' elements) whose hash under `domain` and `node`
    /// differs from `hashes`, once its length is checked.
    fn first_unlike(
        &self,
        what: &'static str,
        wire: &[u8],
        domain: &[u8],
        node: usize,
        hashes: &[[u8; 32]],
    ) -> Result<Option<usize>, Error> {
        let (g, w, wb) = (self.g, self.width, self.g.wire_bytes());
        if wire.len() != self.len() * wb {
            return Err(Error::Length {
                what,
                got: wire.len(),
                want: self.len() * wb,
            });
        }
        Ok(wire
            .par_chunks(w * wb)
            .enumerate()
            .find_first(|(slot, bytes)| {
                hashes.get(*slot) != Some(&slot_hash(g, domain, self.round, node, *slot, bytes))
            })
            .map(|(slot, _)| slot))
    }

    /// The last node's decryption of the mixed slots: `v * m * prod D_i` per element, from the
    /// other nodes' released shares (wire form, tag-checked) and its own. Honest, it is only
    /// the first part of [`Node::realpost`]; the last node is the only one to see it.
    pub fn decrypt(&self, others: &[&[u8]]) -> Result<Vec<G::Elem>, Error> {
        let (g, n) = (self.g, self.len());
        let mut out: Vec<G::Elem> = self
            .v
            .par_iter()
            .zip(&self.m_comp)
            .zip(&self.shares)
            .with_min_len(CHUNK)
            .map(|((v, m), d)| g.mul(&g.mul(v, m), d))
            .collect();
        for wire in others {
            let d = elems_read_wire(g, wire, n, "decryption shares")?;
            out.par_iter_mut()
                .zip(&d)
                .with_min_len(CHUNK)
                .for_each(|(o, d)| g.mul_assign(o, d));
        }
        Ok(out)
    }

    /// realpost (last node): the messages, [`Node::decrypt`] with every output slot decoded. A
    /// slot that is not a message fails the batch (a tag was applied).
    pub fn realpost(&self, others: &[&[u8]]) -> Result<Vec<(u32, Vec<u8>)>, Error> {
        let out = self.decrypt(others)?;
        let decoded: Vec<Result<(u32, Vec<u8>), Error>> = out
            .par_chunks(self.width)
            .map(|slot| message::decode(self.g, slot))
            .collect();
        let bad: Vec<usize> = decoded
            .iter()
            .enumerate()
            .filter(|(_, d)| d.is_err())
            .map(|(i, _)| i)
            .collect();
        if !bad.is_empty() {
            return Err(Error::Tagged { slots: bad });
        }
        Ok(decoded.into_iter().map(|d| d.expect("checked")).collect())
    }

    /// `r_i` of element `k` (input order), for the tests.
    pub fn r_at(&self, k: usize) -> G::Elem {
        self.r[k].clone()
    }
    /// `s_i` of element `k` (output order), for the tests.
    pub fn s_at(&self, k: usize) -> G::Elem {
        self.s[k].clone()
    }
    /// Where `pi_i` sends slot `j`, for the tests.
    pub fn pi_at(&self, j: usize) -> usize {
        self.pi[j] as usize
    }
    /// This node's decryption share of element `k` (output order), for the tests.
    pub fn share_at(&self, k: usize) -> G::Elem {
        self.shares[k].clone()
    }

    /// The mixed slots in wire form, the opening of the commitments.
    pub fn opening(&self) -> &[u8] {
        &self.v_wire
    }

    /// realpost opening check (other nodes): the last node's mixed slots against its
    /// commitments.
    pub fn check_opening(&self, wire: &[u8]) -> Result<(), Error> {
        let last = self.nodes - 1;
        match self.first_unlike("opening", wire, COMMITMENT, last, &self.commitments)? {
            Some(slot) => Err(Error::Opening { slot }),
            None => Ok(()),
        }
    }
}

/// Batch inversion split over the worker threads (one inversion per chunk of 256 or more).
pub fn par_batch_invert<G: Group>(g: &G, xs: &mut [G::Elem]) {
    let threads = rayon::current_num_threads().max(1);
    let chunk = xs.len().div_ceil(threads).max(256);
    xs.par_chunks_mut(chunk).for_each(|c| g.batch_invert(c));
}
