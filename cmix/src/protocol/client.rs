//! The clients' side: registration with every node, the batch's messages (who sends what to
//! whom), blinding a message with the per-message keys, and the checks on what was delivered.

use std::collections::HashMap;

use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

use crate::group::Group;
use crate::protocol::keys::{message_key, shared_key};
use crate::protocol::message;

/// One client's message for a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The sending client's id.
    pub sender: u32,
    /// The recipient's id.
    pub recipient: u32,
    /// The message body.
    pub body: Vec<u8>,
}

/// The batch's messages: every client sends one message, and the recipients are a random
/// permutation of the clients (so every client also receives exactly one), bodies random.
pub fn workload(clients: usize, body_bytes: usize, rng: &mut ChaCha20Rng) -> Vec<Outgoing> {
    let mut recipients: Vec<u32> = (0..clients as u32).collect();
    recipients.shuffle(rng);
    recipients
        .into_iter()
        .enumerate()
        .map(|(j, recipient)| {
            let mut body = vec![0u8; body_bytes];
            rng.fill_bytes(&mut body);
            Outgoing {
                sender: j as u32,
                recipient,
                body,
            }
        })
        .collect()
}

/// A registered client: its shared key with every node.
pub struct Client {
    /// The client's id (and its input slot).
    pub id: u32,
    /// The key shared with each node, by node.
    pub keys: Vec<[u8; 32]>,
}

impl Client {
    /// The client's side of registration with node `node`: the shared key from its secret `a`
    /// and the node's registration key.
    pub fn derive<G: Group>(
        g: &G,
        node: usize,
        id: u32,
        a: &G::Scalar,
        client_pub: &G::Elem,
        node_pub: &G::Elem,
    ) -> [u8; 32] {
        shared_key(g, node, id, &g.exp(node_pub, a), client_pub, node_pub)
    }

    /// The slot's elements `M * prod_i k_ij` in wire form, for batch `round`.
    pub fn blind<G: Group>(
        &self,
        g: &G,
        width: usize,
        round: u64,
        msg: &Outgoing,
    ) -> Result<Vec<u8>, crate::Error> {
        let elems = message::encode(g, width, msg.recipient, &msg.body)?;
        let mut out = Vec::with_capacity(width * g.wire_bytes());
        for (e, m) in elems.iter().enumerate() {
            let mut v = m.clone();
            for k in &self.keys {
                g.mul_assign(&mut v, &message_key(g, k, round, e as u32));
            }
            g.write_wire(&v, &mut out);
        }
        Ok(out)
    }
}

/// What the delivery checks found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeliveryCheck {
    /// Every message reached its recipient, exactly once, with its body.
    pub exactly_once: bool,
    /// The output order differs from the input order.
    pub permuted: bool,
    /// What is wrong, if anything.
    pub problems: Vec<String>,
}

/// Checks the batch's output: `sent` in input-slot order (the first node's order) and the
/// output slots `(recipient, body)` in output order.
pub fn check_delivery(sent: &[Outgoing], output: &[(u32, Vec<u8>)]) -> DeliveryCheck {
    let mut problems = vec![];
    if sent.len() != output.len() {
        problems.push(format!(
            "{} messages sent, {} output slots",
            sent.len(),
            output.len()
        ));
    }
    let mut expected: HashMap<(u32, &[u8]), usize> = HashMap::new();
    for (slot, m) in sent.iter().enumerate() {
        expected.insert((m.recipient, m.body.as_slice()), slot);
    }
    let mut seen = vec![0usize; sent.len()];
    let mut identity = sent.len() == output.len();
    for (pos, (r, body)) in output.iter().enumerate() {
        match expected.get(&(*r, body.as_slice())) {
            Some(&slot) => {
                seen[slot] += 1;
                identity &= slot == pos;
            }
            None => problems.push(format!(
                "output slot {pos} (to client {r}) is no message that was sent"
            )),
        }
    }
    for (slot, &k) in seen.iter().enumerate() {
        if k != 1 {
            problems.push(format!(
                "the message of input slot {slot} (client {} to {}) was delivered {k} times",
                sent[slot].sender, sent[slot].recipient
            ));
        }
    }
    let exactly_once = problems.is_empty();
    let permuted = !identity;
    if !permuted {
        problems.push("the output order is the input order".into());
    }
    DeliveryCheck {
        exactly_once,
        permuted,
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    fn sent(n: usize) -> Vec<Outgoing> {
        workload(n, 4, &mut ChaCha20Rng::from_seed([5; 32]))
    }

    #[test]
    fn a_permuted_complete_output_passes() {
        let s = sent(5);
        let mut out: Vec<(u32, Vec<u8>)> =
            s.iter().map(|m| (m.recipient, m.body.clone())).collect();
        out.rotate_left(2);
        let c = check_delivery(&s, &out);
        assert!(c.exactly_once && c.permuted, "{c:?}");
        // Every client receives exactly one message.
        let mut r: Vec<u32> = s.iter().map(|m| m.recipient).collect();
        r.sort();
        assert_eq!(r, (0..5).collect::<Vec<_>>());
    }

    #[test]
    fn duplicates_losses_strangers_and_the_identity_order_are_refused() {
        let s = sent(5);
        let good: Vec<(u32, Vec<u8>)> = s.iter().map(|m| (m.recipient, m.body.clone())).collect();
        let c = check_delivery(&s, &good);
        assert!(c.exactly_once && !c.permuted, "{c:?}");
        let mut dup = good.clone();
        dup.rotate_left(1);
        dup[0] = dup[1].clone();
        assert!(!check_delivery(&s, &dup).exactly_once);
        let mut stranger = good.clone();
        stranger.rotate_left(1);
        stranger[3].1[0] ^= 1;
        let c = check_delivery(&s, &stranger);
        assert!(!c.exactly_once, "{c:?}");
        assert!(!check_delivery(&s, &good[1..]).exactly_once);
    }
}
