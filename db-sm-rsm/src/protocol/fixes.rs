//! The upstream defects a run fixes, as the JSON report's `fixes` list: one line each,
//! `"<code>: <what this implementation does>"`. `docs/fixes.md` defines every code (and the
//! shortcuts kept as upstream); a test checks that each code here has its row there.

use crate::primitives::security::SecurityLevel;

/// The fixes in force in a run at the given security setting (`--security paper` keeps
/// upstream's short challenges and slack, so A4 and most of A5 do not apply there).
pub fn fixes(security: SecurityLevel) -> Vec<String> {
    let mut out: Vec<&str> = vec![
        "B1: status_pk_bl and status_pk_blrev are the AND over every mixer's verifications",
        "B2: status_forward/reverse_set_membership AND every sub-status of their section",
        "B3 (partly): every mixer runs its checks even after another mixer's check failed",
        "B4: the per-mixer Paillier fixed-base table is built and used for the senders' share \
         encryptions",
        "B5: batched decryption-share proofs use n+1 deltas, so ciphertext 0 is covered",
        "B6: the Paillier decryption-share proof mask is long enough to hide d_k",
        "B7: Paillier PoK commitments are reduced mod N^2 (and sized so)",
        "B9: Paillier shuffle responses are integers (no wrap-around failures)",
        "B11: the DPK_BBS+ verifier does not exponentiate the identity of GT",
        "B13: mask lengths follow the key, the curve and the security setting",
        "B14: per-party totals match an explicit party tag, not a label prefix",
        "F1/F2: every Fiat-Shamir challenge hashes the whole statement",
        "S6: challenge vectors e and batching vectors delta come from Fiat-Shamir",
        "CSPRNG: ChaCha20 (seeded from the OS; with --seed, from the public seed: reproducible, \
         not secret) instead of Mersenne Twister",
        "S2: Paillier keys are made for every run (one key per mixer), outside the protocol's \
         timers and timed on their own line: generated from the OS (secret), or with --seed \
         derived from the public seed (not secret); fixed test keys only with --test-keys",
        "A2: each mixer's Paillier primes P = 2pp'+1, Q = 2qq'+1 have p', q' prime (no elements \
         of small odd order); a share ciphertext that does not decrypt and a failed share \
         combination are False statuses, not zero values",
        "A1: DPK_BB rejects a blinded signature equal to the identity (blinding shares summing \
         to 0), DPK_BBS+ an identity S~ or z1; honest mixers draw nonzero blindings",
        "A3: every non-OS random generator is seeded with 32 bytes",
    ];
    out.extend(match security {
        SecurityLevel::Bits128 => [
            "A4: every mask of the Paillier-side proofs exceeds the value it hides by at least \
             80 bits (--security 128: kappa_r = 80)",
            "A5: 128-bit challenges and batching vectors (--security 128), uniform (no forced \
             top bit); both Paillier shuffle sub-proofs open one FO commitment to (t1, t2)",
        ]
        .as_slice(),
        SecurityLevel::Paper => ["A5 (partly): uniform challenges (no forced top bit); both \
             Paillier shuffle sub-proofs open one FO commitment to (t1, t2)"]
        .as_slice(),
    });
    out.extend([
        "A6: m < 2 is refused (with one mixer no proof is checked by another)",
        "A7: input proofs bind the run identifier, the sender and the role of the proven value; \
         duplicate input ciphertexts and commitments are rejected",
        "H1: threshold-Paillier shares are combined as (prod s_k)^2 and the share proof works on \
         squares, so a share multiplied by -1 cannot corrupt a decryption",
    ]);
    out.into_iter().map(str::to_string).collect()
}

/// The codes a fixes line names: `"F1/F2: ..."` names F1 and F2, `"B3 (partly): ..."` B3.
pub fn codes(line: &str) -> Vec<&str> {
    let head = line.split(':').next().unwrap_or("");
    let head = head.split(" (").next().unwrap_or(head);
    head.split('/').map(str::trim).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/fixes.md` has a table row for every code a run prints.
    #[test]
    fn every_code_is_defined_here() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/fixes.md"))
            .expect("docs/fixes.md");
        for level in [SecurityLevel::Bits128, SecurityLevel::Paper] {
            for line in fixes(level) {
                for code in codes(&line) {
                    assert!(
                        doc.contains(&format!("\n| {code} |")),
                        "{code} (from {line:?}) has no row in docs/fixes.md"
                    );
                }
            }
        }
        assert_eq!(codes("F1/F2: x"), ["F1", "F2"]);
        assert_eq!(codes("B3 (partly): x"), ["B3"]);
    }
}
