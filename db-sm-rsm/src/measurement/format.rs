//! The paper's report format, line by line: how times and sizes are printed (as upstream's
//! Python printed them), how lines are indented, how status lines read, and the label tree of a
//! full run, which the tests compare with the paper's sample report.
//!
//! Grammar (docs/protocol.md §9): a line at level L is indented by `4L + 1` spaces; a timer with
//! children prints its name (a *header*) just before its first child timer, at its own level,
//! and every timer prints `<name> time: <t> s` when it ends.

/// Appends `text` at `level`: `4·level + 1` spaces of indentation.
pub(crate) fn push_line(out: &mut String, level: usize, text: &str) {
    out.push_str(&" ".repeat(4 * level + 1));
    out.push_str(text);
    out.push('\n');
}

/// Upstream's `fmt`: Python `format(x, '.2')`, then any exponent form written out in plain
/// digits. Python keeps fixed notation (with at least one fractional digit) for 1e-4 <= x < 10
/// and switches to scientific otherwise; the rounding is to the nearest, ties to even, on the
/// exact binary value, which Rust's `{:.1e}` also does.
/// CPU time of this process, all threads (`CLOCK_PROCESS_CPUTIME_ID`).
pub fn fmt_seconds(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == 0.0 {
        return "0.0".into();
    }
    let neg = x < 0.0;
    let sci = format!("{:.1e}", x.abs());
    let (mant, exp) = sci.split_once('e').expect("{:e} always has an exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let mut digits: String = mant.chars().filter(|c| *c != '.').collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    let mut s = if exp >= 0 {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            let mut s = digits.clone() + &"0".repeat(int_len - digits.len());
            if exp == 0 {
                // Python's fixed form always shows a fractional digit (`2.0`).
                s.push_str(".0");
            }
            s
        } else {
            format!("{}.{}", &digits[..int_len], &digits[int_len..])
        }
    } else {
        format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
    };
    if neg {
        s.insert(0, '-');
    }
    s
}

/// Python's `repr(float)`: the shortest round-tripping digits, with `.0` on integral values.
pub fn py_float_repr(x: f64) -> String {
    let s = format!("{x}");
    if x.is_finite() && !s.contains('.') && !s.contains('e') {
        s + ".0"
    } else {
        s
    }
}

/// Lines our report adds to the paper's format, by their text after the indentation: the
/// security level, the test option `--hold-at`, where the keys came from and how long their
/// generation took (a timer line), and the status of the mixers' decryption of their own share
/// ciphertexts (a status line).
pub const ADDED_LINES: &[&str] = &[
    "security: ",
    "hold-at: ",
    "key generation time: ",
    "keys: ",
    "status_share_decryption",
];

/// `report` without the lines of [`ADDED_LINES`]: what the paper's report would have printed.
pub fn without_additions(report: &str) -> String {
    report
        .lines()
        .filter(|l| !ADDED_LINES.iter().any(|a| l.trim_start().starts_with(a)))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Parses a status line in either form (`status_x: True` or `status_x True`).
pub fn parse_status_line(line: &str) -> Option<(String, bool)> {
    let t = line.trim();
    if !t.starts_with("status_") {
        return None;
    }
    let (name, value) = t.rsplit_once(' ')?;
    let ok = match value {
        "True" => true,
        "False" => false,
        _ => return None,
    };
    Some((name.trim_end_matches(':').to_string(), ok))
}

/// Replaces every number of a report with a placeholder, keeping labels, party indices and
/// statuses: what remains is the label tree, comparable between runs and with the paper.
pub fn mask_numbers(report: &str) -> Vec<String> {
    report
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            if let Some(head) = l.strip_suffix(" s") {
                if let Some((label, _)) = head.rsplit_once(": ") {
                    return format!("{label}: <t> s");
                }
            }
            if let Some(head) = l.strip_suffix(" MB") {
                if let Some((label, _)) = head.rsplit_once(": ") {
                    return format!("{label}: <size> MB");
                }
            }
            for count in ["number of entries: ", "number of mix-servers: "] {
                if let Some(pos) = l.find(count) {
                    return format!("{}<count>", &l[..pos + count.len()]);
                }
            }
            l.to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmt_matches_python() {
        let cases = [
            (44.3, "44"),
            (1100.2, "1100"),
            (17000.0, "17000"),
            (9.96, "10"),
            (2.5, "2.5"),
            (2.0, "2.0"),
            (0.0092, "0.0092"),
            (4.5e-5, "0.000045"),
            (0.05, "0.05"),
            (0.125, "0.12"),
            (0.1, "0.1"),
            (99.5, "100"),
            (250.0, "250"),
            (0.17, "0.17"),
        ];
        for (x, want) in cases {
            assert_eq!(fmt_seconds(x), want, "fmt({x})");
        }
    }

    #[test]
    fn float_repr_matches_python() {
        assert_eq!(py_float_repr(200.26922225952148), "200.26922225952148");
        assert_eq!(py_float_repr(0.30517578125), "0.30517578125");
        assert_eq!(py_float_repr(3.0), "3.0");
    }

    #[test]
    fn status_lines_parse_in_both_forms() {
        assert_eq!(
            parse_status_line("         status_pkcomms True"),
            Some(("status_pkcomms".into(), true))
        );
        assert_eq!(
            parse_status_line("  status_encs: False"),
            Some(("status_encs".into(), false))
        );
        assert_eq!(parse_status_line("mixer 0 total time: 3 s"), None);
    }
}

#[cfg(test)]
use crate::measurement::report::{Party, Report, Totals};

/// Every mixer's leaf `name`, in mixer order, with zero duration.
#[cfg(test)]
fn each(r: &mut Report, m: usize, name: &str) {
    for k in 0..m {
        r.record(Some(Party::Mixer(k)), name, 0.0);
    }
}

/// A mixers' section: every mixer's leaf for each label in order, and the `status_*` lines
/// where they stand.
#[cfg(test)]
fn mixer_section(r: &mut Report, m: usize, name: &str, items: &[&str]) {
    r.section(name, Totals::Mixers, |r| {
        for item in items {
            if item.starts_with("status_") {
                r.status(item, true);
            } else {
                each(r, m, item);
            }
        }
    })
}

/// A section in which only the verifier works: its one leaf `leaf`.
#[cfg(test)]
fn verifier_section(r: &mut Report, name: &str, leaf: &str) {
    r.section(name, Totals::Verifier, |r| {
        r.record(Some(Party::Verifier), leaf, 0.0)
    })
}

/// Drives a report with every timer, status and size line of a full run, in report order, with
/// the real labels and zero durations. Used to check the label tree against the paper's sample
/// before (and independently of) the protocol itself.
#[cfg(test)]
pub(crate) fn skeleton(n: usize, m: usize) -> Report {
    let mut r = Report::new(m, false);
    r.section("main", Totals::None, |r| {
        r.line(format!("number of entries: {n}"));
        r.line(format!("number of mix-servers: {m}"));
        skeleton_preprocessing(r, m);
        r.record(None, "input preparation", 0.0);
        skeleton_checking_inputs(r, m);
        skeleton_mixing(r, m);
        skeleton_forward_set_membership(r, m);
        skeleton_reverse_set_membership(r, m);
        skeleton_sizes(r);
    });
    r
}

/// The skeleton's `preprocessing` section.
#[cfg(test)]
fn skeleton_preprocessing(r: &mut Report, m: usize) {
    r.section("preprocessing", Totals::None, |r| {
        r.section("pai_th_keygen", Totals::None, |r| r.line("precomputing..."));
        for _ in 0..m {
            r.section("pai_keygen", Totals::None, |r| r.line("precomputing..."));
        }
        r.record(None, "gen_beaver_triples", 0.0);
        r.record(
            None,
            "creating proof of knowledge of permutation commitment opening",
            0.0,
        );
        r.status("status_permcomm", true);
    });
}

/// The skeleton's `checking inputs` section.
#[cfg(test)]
fn skeleton_checking_inputs(r: &mut Report, m: usize) {
    r.section("checking inputs", Totals::None, |r| {
        r.section("check_encs", Totals::Mixers, |r| {
            each(r, m, "checking proofs of knowledge of input ciphertexts")
        });
        r.status("status_encs", true);
    });
}

/// The skeleton's `mixing` section.
#[cfg(test)]
fn skeleton_mixing(r: &mut Report, m: usize) {
    let mixers = || (0..m).map(Party::Mixer);
    r.section("mixing", Totals::Mixers, |r| {
        r.section("re-encryption and permutation", Totals::Mixers, |r| {
            for p in mixers() {
                r.record(Some(p), "re-encryption", 0.0);
                r.record(Some(p), "creating proof of correct shuffle", 0.0);
            }
            each(r, m, "verifying others' proofs of shuffle");
            r.status("status_shuffle", true);
        });
        mixer_section(
            r,
            m,
            "decryption of output messages",
            &[
                "threshold decryption",
                "verifying others' decryption shares (batched)",
                "combining decryption shares",
                "status_decshares",
            ],
        );
        r.section(
            "decryption of individual message/randomness shares",
            Totals::Mixers,
            |r| each(r, m, "decryption of individual message/randomness shares"),
        );
    });
}

/// The skeleton's `forward set membership` section (DB-SM).
#[cfg(test)]
fn skeleton_forward_set_membership(r: &mut Report, m: usize) {
    use Party::Mixer;
    r.section("forward set membership", Totals::MixersAndVerifier, |r| {
        verifier_section(r, "get_verfsigs", "creating BB signatures and encryptions");
        r.section("check_verfsigs", Totals::Mixers, |r| {
            each(r, m, "checking verifier's signatures and encryptions")
        });
        r.status("status_verfsigs", true);
        r.section("get_blsigs", Totals::Mixers, |r| {
            r.section(
                "re-encrypt and reverse-permute BB signatures",
                Totals::Mixers,
                |r| {
                    for k in (0..m).rev() {
                        r.record(Some(Mixer(k)), "reencrypting encrypted BB signatures", 0.0);
                        r.record(
                            Some(Mixer(k)),
                            "creating proof of shuffle of encrypted BB signatures",
                            0.0,
                        );
                    }
                    each(
                        r,
                        m,
                        "verifying others' proofs of shuffle of encrypted BB signatures",
                    );
                    r.status("status_shuffle_blsigs", true);
                },
            );
            mixer_section(
                r,
                m,
                "generate encrypted blinded BB signatures",
                &[
                    "generate encrypted blinded BB signatures and proofs of knowledge of blinding factors",
                    "verifying others' proofs of knowledge of blinding factors",
                    "status_pk_bl",
                    "generate encrypted blinded BB signatures",
                ],
            );
            mixer_section(
                r,
                m,
                "decrypt blinded signatures",
                &[
                    "obtain decryption shares",
                    "verifying others' decryption shares",
                    "combine decryption shares",
                    "status_decshares_blsigs",
                ],
            );
        });
        mixer_section(
            r,
            m,
            "dpk_bbsig_nizkproofs",
            &[
                "creating dpk_bbsig commit message",
                "creating dpk_bbsig challenge",
                "creating dpk_bbsig response message",
            ],
        );
        verifier_section(r, "dpk_bbsig_nizkverifs", "verifying dpk_bbsig proof");
        r.status("status_dpk_bbsig", true);
        r.status("status_forward_set_membership", true);
    });
}

/// The skeleton's `reverse set membership` section (DB-RSM).
#[cfg(test)]
fn skeleton_reverse_set_membership(r: &mut Report, m: usize) {
    let mixers = || (0..m).map(Party::Mixer);
    r.section("reverse set membership", Totals::MixersAndVerifier, |r| {
        verifier_section(r, "pkcommverifs", "verifying proof of knowledge of commitment openings");
        r.status("status_pkcomms", true);
        verifier_section(r, "get_verfsigs_rev", "creating BBS+ signatures and encryptions");
        r.section("check_verfsigs_rev", Totals::Mixers, |r| {
            each(r, m, "checking verifier's signatures and encryptions")
        });
        r.status("status_verfsigs_rev", true);
        r.section("get_blsigs_rev", Totals::Mixers, |r| {
            r.section("re-encrypt and permute BBS+ signatures", Totals::Mixers, |r| {
                each(r, m, "homomorphically obtain the r component of BBS+ sig");
                for p in mixers() {
                    r.record(Some(p), "reencrypting encrypted BBS+ signatures", 0.0);
                    r.record(
                        Some(p),
                        "creating proof of shuffle of encrypted BBS+ signatures",
                        0.0,
                    );
                }
                each(
                    r,
                    m,
                    "verifying others' proofs of shuffle of encrypted BBS+ signatures",
                );
                r.status("status_shuffle_blsigs_rev", true);
            });
            mixer_section(
                r,
                m,
                "generate encrypted blinded BBS+ signatures",
                &[
                    "generate encrypted blinding factors and proofs of knowledge of blinding factors",
                    "verifying others' proofs of knowledge of blinding factors",
                    "status_pk_blrev",
                    "generate encrypted blinded BBS+ signatures",
                ],
            );
            mixer_section(
                r,
                m,
                "decryption of blinded BBS+ signatures",
                &[
                    "obtain decryption shares",
                    "verifying others' decryption shares",
                    "combining decryption shares",
                    "status_decshares_blsigs_rev",
                ],
            );
        });
        mixer_section(
            r,
            m,
            "dpk_bbsplussig_nizkproofs",
            &[
                "creating additive shares for delta0",
                "creating multiplicative shares for delta1 step 1",
                "creating multiplicative shares for delta1 step 2",
                "creating multiplicative shares for delta2 step 1",
                "creating multiplicative shares for delta2 step 2",
                "computing shares of z1 and proof of knowledge of their openings",
                "verifying others' proof of knowledge of openings of shares of z1",
                "status_pk_z1",
                "computing generators",
                "creating dpk_bbsplussig commit message",
                "creating dpk_bbsplussig challenge",
                "creating dpk_bbsplussig response message",
            ],
        );
        verifier_section(r, "dpk_bbsplussig_nizkverifs", "verifying dpk_bbsplussig proofs");
        r.status("status_dpk_bbsplussig", true);
        r.status("status_reverse_set_membership", true);
    });
}

/// The skeleton's five size lines.
#[cfg(test)]
fn skeleton_sizes(r: &mut Report) {
    for label in [
        "size of sender-uploaded input ciphertexts",
        "size of verifier-uploaded BB signatures",
        "size of DPK_BBsig proofs",
        "size of verifier-uploaded BBS+ signatures",
        "size of DPK_BBSPlusSig proofs",
    ] {
        r.size(label, 1.0);
    }
}

/// The paper's sample report, shipped in the repository with the analysis package
/// (`analysis/data/paper/`), or from `$DBSM_SAMPLE_REPORT`.
#[cfg(test)]
pub(crate) fn paper_sample() -> String {
    let path = match std::env::var("DBSM_SAMPLE_REPORT") {
        Ok(p) => std::path::PathBuf::from(p),
        Err(_) => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../analysis/data/paper/report-db-sm-rsm-n10000-m4"),
    };
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("paper sample report {}: {e}", path.display()))
}

/// The sample's label tree: numbers masked, and the run harness's trailer (`******** Worker 0`
/// and a dashed line, which upstream's code never printed) dropped.
#[cfg(test)]
pub(crate) fn sample_label_tree(sample: &str) -> Vec<String> {
    mask_numbers(sample)
        .into_iter()
        .filter(|l| !l.starts_with("****") && !l.starts_with("----"))
        .collect()
}

#[cfg(test)]
mod sample_tests {
    use super::*;

    #[test]
    fn label_tree_matches_paper_sample_for_m4() {
        let sample = paper_sample();
        let want = sample_label_tree(&sample);
        let got = mask_numbers(&skeleton(10000, 4).render());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "line {} differs", i + 1);
        }
        assert_eq!(got.len(), want.len());
    }
}
