//! The five size lines of the report (docs/protocol.md §8): bytes of entry 0's objects, times n,
//! in MiB (÷ 2^20, printed with the label suffix ` MB` as upstream).
//!
//! Convention (documented difference from upstream): sizes are those of our own encodings, not
//! PBC's "serialised length − 1". Group elements and scalars are arkworks' compressed
//! encodings (BN254: Zq 32 B, G1 32 B, GT 384 B; BLS12-381: Zq 32 B, G1 48 B, GT 576 B).
//! Paillier ciphertexts count as the fixed width of N² (what a fixed-width wire format sends),
//! proof integers as their minimal big-endian byte length; the PoK commitment C is reduced mod
//! N² (fix B7), which shrinks the sender line by about 5 KB per entry at m = 4.
//!
//! These lines count the payload only, the paper's way. What is actually sent for the same
//! values ([`sent_lines`]) is the primary size figure of the JSON report and the PDF: the bytes
//! of every post that carries them, as the parties posted them (`--transport tls`) or would
//! have (one process: the same posts encoded and counted, [`crate::transport::Posted`]). The
//! verifier's posts carry each signature with its encryption and the encryption's randomness, and
//! the mixers' posts in the NIZK sections every mixer's commit messages, shares and (DB-RSM) the
//! Beaver openings and z1 factors with their proofs, where the paper's lines count the signature
//! and one final proof.

use ark_ec::pairing::Pairing;
use ark_serialize::CanonicalSerialize;

use crate::primitives::thpaillier::int_bytes;
use crate::protocol::dbrsm::RsmOutput;
use crate::protocol::dbsm::SmOutput;
use crate::protocol::inputs::Inputs;
use crate::protocol::setup::Public;
use crate::transport::{Ctx, Posted};
use crate::Result;

const MIB: f64 = 1024.0 * 1024.0;

/// Bytes sender 0 uploaded: cv, cr and their PoKs, γ and its pkcomm proof, and for every mixer
/// the two share ciphertexts with their PoKs.
pub fn sender_entry_bytes<E: Pairing>(public: &Public<E>, inputs: &Inputs<E>) -> Result<usize> {
    let th_ct = int_bytes(&public.th.n2);
    let mut b = 2 * th_ct + inputs.cv_pf.first()?.size_bytes() + inputs.cr_pf.first()?.size_bytes();
    b += inputs.gammas[0].compressed_size() + inputs.pkcomm.first()?.size_bytes();
    for (k, pk) in public.mixer_pks.iter().enumerate() {
        let s = inputs.shares[k].first()?;
        b += 2 * int_bytes(&pk.n2) + s.cv_pf.size_bytes() + s.cr_pf.size_bytes();
    }
    Ok(b)
}

/// The five size lines, printed into the `main` section.
pub fn size_lines<E: Pairing>(
    r: &mut Ctx,
    public: &Public<E>,
    inputs: &Inputs<E>,
    sm: &SmOutput,
    rsm: &RsmOutput,
) -> Result<()> {
    let n = public.n as f64;
    let mb = |bytes: usize| bytes as f64 * n / MIB;
    r.size(
        "size of sender-uploaded input ciphertexts",
        mb(sender_entry_bytes(public, inputs)?),
    );
    r.size("size of verifier-uploaded BB signatures", mb(sm.sig_bytes));
    r.size("size of DPK_BBsig proofs", mb(sm.dpk_entry_bytes));
    r.size(
        "size of verifier-uploaded BBS+ signatures",
        mb(rsm.sig_bytes),
    );
    r.size("size of DPK_BBSPlusSig proofs", mb(rsm.dpk_entry_bytes));
    Ok(())
}

/// Each size line with the posts that carry its values: whose (a party's name, or a prefix of
/// it) and under which scope ([`crate::transport::scope_of`]).
pub const SENT: [(&str, &str, &str); 5] = [
    (
        "size of sender-uploaded input ciphertexts",
        "driver",
        "main",
    ),
    (
        "size of verifier-uploaded BB signatures",
        "verifier",
        "main/forward set membership/get_verfsigs",
    ),
    (
        "size of DPK_BBsig proofs",
        "mixer ",
        "main/forward set membership/dpk_bbsig_nizkproofs",
    ),
    (
        "size of verifier-uploaded BBS+ signatures",
        "verifier",
        "main/reverse set membership/get_verfsigs_rev",
    ),
    (
        "size of DPK_BBSPlusSig proofs",
        "mixer ",
        "main/reverse set membership/dpk_bbsplussig_nizkproofs",
    ),
];

/// The five size lines as sent, in MiB: the bytes of the posts carrying each line's values
/// ([`SENT`]), the frames whole (kind, tag, stamp, body), TLS records aside.
pub fn sent_lines(posted: &[Posted]) -> Vec<(String, f64)> {
    SENT.iter()
        .map(|(label, who, scope)| {
            let bytes: u64 = posted
                .iter()
                .filter(|p| p.scope == *scope && p.party.starts_with(who))
                .map(|p| p.bytes)
                .sum();
            (label.to_string(), bytes as f64 / MIB)
        })
        .collect()
}
