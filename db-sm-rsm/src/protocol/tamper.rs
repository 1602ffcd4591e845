//! `--tamper STEP`: one named party corrupts one value at one step, so that one can watch the
//! matching status of the report turn False (every status of the report has at least one).
//!
//! The corruption is applied by the cheating party itself ([`Tamper::cheater`]), after it
//! computed the honest value and before it publishes it; everyone else runs the honest code.
//! A step asks [`crate::protocol::config::Config::cheats`] with its own party whether to cheat.

use clap::ValueEnum;

/// Who applies a tamper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cheater {
    /// Mix-server k.
    Mixer(usize),
    /// The last mix-server (the one that can cancel the others' contributions).
    LastMixer,
    /// The verifier.
    Verifier,
    /// Sender i.
    Sender(usize),
    /// The trusted dealer of preprocessing.
    Dealer,
}

impl Cheater {
    /// True iff `self` names the same party as `other` among `m` mixers.
    pub fn is(self, other: Cheater, m: usize) -> bool {
        let resolve = |c: Cheater| match c {
            Cheater::LastMixer => Cheater::Mixer(m.saturating_sub(1)),
            c => c,
        };
        resolve(self) == resolve(other)
    }
}

/// One corruption, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Tamper {
    /// Mixer 0 changes one response of its proof of knowledge of the permutation commitment.
    #[value(name = "permcomm")]
    PermComm,
    /// Sender 0 changes one response of its proof of knowledge of the plaintext of cv.
    #[value(name = "inputpok")]
    InputPok,
    /// Mixer 0 changes one output ciphertext of its shuffle in mixing.
    #[value(name = "shuffle")]
    Shuffle,
    /// Mixer 0 publishes one wrong decryption share of an output ciphertext.
    #[value(name = "decshare")]
    DecShare,
    /// The verifier publishes one BB signature that does not verify.
    #[value(name = "verfsig")]
    VerfSig,
    /// Mixer 0 changes one output ciphertext of its shuffle of encrypted BB signatures.
    #[value(name = "shuffle-bb")]
    ShuffleBb,
    /// Mixer 0 changes one response of a proof of knowledge of its BB blinding factors.
    #[value(name = "blinding")]
    Blinding,
    /// Mixer 0 publishes one wrong decryption share of a blinded BB signature.
    #[value(name = "decshare-bb")]
    DecShareBb,
    /// Mixer 0 changes one of its response shares of the DPK for BB signatures.
    #[value(name = "dpk-bb")]
    DpkBb,
    /// Sender 0 changes one response of its proof of knowledge of its commitment's opening.
    #[value(name = "pkcomm")]
    PkComm,
    /// The verifier publishes one BBS+ quasi-signature that does not verify.
    #[value(name = "verfsig-rev")]
    VerfSigRev,
    /// Mixer 0 changes one output ciphertext of its shuffle of encrypted BBS+ signatures.
    #[value(name = "shuffle-bbsplus")]
    ShuffleBbsPlus,
    /// Mixer 0 changes one response of a proof of knowledge of its BBS+ blinding factors.
    #[value(name = "blinding-rev")]
    BlindingRev,
    /// Mixer 0 publishes one wrong decryption share of a blinded BBS+ signature.
    #[value(name = "decshare-bbsplus")]
    DecShareBbsPlus,
    /// Mixer 0 changes one response of its proof of knowledge of a z1 share's opening.
    #[value(name = "pk-z1")]
    PkZ1,
    /// Mixer 0 changes one of its response shares of the DPK for BBS+ signatures.
    #[value(name = "dpk-bbsplus")]
    DpkBbsPlus,
    /// The mixers collude: their BB blinding shares sum to 0, so every blinded signature is the
    /// identity, and every proof they make is honest.
    #[value(name = "zero-blinding")]
    ZeroBlinding,
    /// Sender 1 resubmits sender 0's whole input (ciphertexts, commitment, shares and proofs),
    /// so that sender 0's message would come out twice.
    #[value(name = "replay")]
    Replay,
    /// Sender 0 sends mixer 0 a share ciphertext that does not decrypt (2, a unit of Z*_{N²}
    /// outside the group of ciphertexts).
    #[value(name = "share-ciphertext")]
    ShareCiphertext,
    /// The verifier reveals a randomness other than the one of its first BB signature's
    /// encryption.
    #[value(name = "verfsig-enc")]
    VerfSigEnc,
    /// The verifier reveals a randomness other than the one of its first BBS+ signature's c
    /// encryption.
    #[value(name = "verfsig-rev-enc")]
    VerfSigRevEnc,
    /// Mixer 0 holds an ElGamal key share that does not match the public key Y; its
    /// verification key Y_0 matches the share, so its decryption-share proofs verify.
    #[value(name = "elgamal-key")]
    ElgamalKey,
}

impl Tamper {
    /// Every tamper, with the status it must turn False.
    pub const ALL: [(Tamper, &'static str); 22] = [
        (Tamper::PermComm, "status_permcomm"),
        (Tamper::InputPok, "status_encs"),
        (Tamper::Shuffle, "status_shuffle"),
        (Tamper::DecShare, "status_decshares"),
        (Tamper::VerfSig, "status_verfsigs"),
        (Tamper::ShuffleBb, "status_shuffle_blsigs"),
        (Tamper::Blinding, "status_pk_bl"),
        (Tamper::DecShareBb, "status_decshares_blsigs"),
        (Tamper::DpkBb, "status_dpk_bbsig"),
        (Tamper::PkComm, "status_pkcomms"),
        (Tamper::VerfSigRev, "status_verfsigs_rev"),
        (Tamper::ShuffleBbsPlus, "status_shuffle_blsigs_rev"),
        (Tamper::BlindingRev, "status_pk_blrev"),
        (Tamper::DecShareBbsPlus, "status_decshares_blsigs_rev"),
        (Tamper::PkZ1, "status_pk_z1"),
        (Tamper::DpkBbsPlus, "status_dpk_bbsplussig"),
        (Tamper::ZeroBlinding, "status_dpk_bbsig"),
        (Tamper::Replay, "status_encs"),
        (Tamper::ShareCiphertext, "status_share_decryption"),
        (Tamper::VerfSigEnc, "status_verfsigs"),
        (Tamper::VerfSigRevEnc, "status_verfsigs_rev"),
        (Tamper::ElgamalKey, "status_decshares_blsigs"),
    ];

    /// The command-line name of the tamper (as in `--tamper NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Tamper::PermComm => "permcomm",
            Tamper::InputPok => "inputpok",
            Tamper::Shuffle => "shuffle",
            Tamper::DecShare => "decshare",
            Tamper::VerfSig => "verfsig",
            Tamper::ShuffleBb => "shuffle-bb",
            Tamper::Blinding => "blinding",
            Tamper::DecShareBb => "decshare-bb",
            Tamper::DpkBb => "dpk-bb",
            Tamper::PkComm => "pkcomm",
            Tamper::VerfSigRev => "verfsig-rev",
            Tamper::ShuffleBbsPlus => "shuffle-bbsplus",
            Tamper::BlindingRev => "blinding-rev",
            Tamper::DecShareBbsPlus => "decshare-bbsplus",
            Tamper::PkZ1 => "pk-z1",
            Tamper::DpkBbsPlus => "dpk-bbsplus",
            Tamper::ZeroBlinding => "zero-blinding",
            Tamper::Replay => "replay",
            Tamper::ShareCiphertext => "share-ciphertext",
            Tamper::VerfSigEnc => "verfsig-enc",
            Tamper::VerfSigRevEnc => "verfsig-rev-enc",
            Tamper::ElgamalKey => "elgamal-key",
        }
    }

    /// The party that applies this tamper.
    pub fn cheater(self) -> Cheater {
        match self {
            Tamper::InputPok | Tamper::PkComm | Tamper::ShareCiphertext => Cheater::Sender(0),
            Tamper::Replay => Cheater::Sender(1),
            Tamper::VerfSig | Tamper::VerfSigRev | Tamper::VerfSigEnc | Tamper::VerfSigRevEnc => {
                Cheater::Verifier
            }
            Tamper::ZeroBlinding => Cheater::LastMixer,
            Tamper::ElgamalKey => Cheater::Dealer,
            Tamper::PermComm
            | Tamper::Shuffle
            | Tamper::DecShare
            | Tamper::ShuffleBb
            | Tamper::Blinding
            | Tamper::DecShareBb
            | Tamper::DpkBb
            | Tamper::ShuffleBbsPlus
            | Tamper::BlindingRev
            | Tamper::DecShareBbsPlus
            | Tamper::PkZ1
            | Tamper::DpkBbsPlus => Cheater::Mixer(0),
        }
    }

    /// The status this tamper must turn False.
    pub fn status(self) -> &'static str {
        Tamper::ALL
            .iter()
            .find(|(t, _)| *t == self)
            .map(|(_, s)| *s)
            .expect("every tamper is in ALL")
    }

    /// The `--help` epilogue: every tamper name with the status it breaks.
    pub fn help_text() -> String {
        let mut s = String::from("Tamper steps (--tamper STEP -> status that turns False):\n");
        for (t, status) in Tamper::ALL {
            s.push_str(&format!("  {:<17} {status}\n", t.name()));
        }
        s.push_str(
            "A tamper in mixing or a shuffle also garbles what later steps compute, so later \
             statuses may turn False as well.",
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_agree_with_the_command_line() {
        for (t, _) in Tamper::ALL {
            let v = t.to_possible_value().expect("no skipped variants");
            assert_eq!(v.get_name(), t.name());
            assert_eq!(Tamper::from_str(t.name(), false), Ok(t));
        }
        assert_eq!(Tamper::ALL.len(), Tamper::value_variants().len());
    }
}
