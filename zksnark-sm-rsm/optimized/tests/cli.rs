//! The `zksnark-optimized build` binary end to end: its report is the suite's envelope around a
//! body that follows docs/report.schema.json, for each variant; a v at or above L is refused by
//! the sound circuit (exit 2, naming the range check) and accepted as published.

use std::path::Path;
use std::process::Command;

use ark_bn254::Fr;
use ark_ff::PrimeField;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::json;

use zksnark_optimized::primitives::babyjubjub::{pedersen_h, subgroup_order};
use zksnark_optimized::sample::{commit, sample};
use zksnark_optimized::statement::{Node, Public, Statement, TreeHash, Variant};
use zksnark_prover::snark::decimal;

fn field(x: &Node) -> String {
    match x {
        Node::Field(f) => decimal(f),
        Node::Digest(_) => unreachable!("a Poseidon tree"),
    }
}

/// The driver's input file for an RSM instance, with the public v replaced by `v`.
fn rsm_inputs(v: Fr, r: Fr, siblings: &[Node], right: &[bool], root: &Node) -> serde_json::Value {
    let h = pedersen_h();
    json!({
        "statement": "rsm", "hash": "poseidon", "H": [decimal(&h.x), decimal(&h.y)],
        "root": field(root), "v": decimal(&v), "r": decimal(&r),
        "siblings": siblings.iter().map(field).collect::<Vec<_>>(), "right": right,
    })
}

fn build(
    dir: &Path,
    tag: &str,
    inputs: &serde_json::Value,
    variant: Variant,
) -> std::process::Output {
    let f = |ext: &str| dir.join(format!("{tag}.{ext}"));
    std::fs::write(f("json"), inputs.to_string()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_zksnark-optimized"))
        .args(["build", "--variant", variant.name(), "--inputs"])
        .arg(f("json"))
        .arg("--r1cs")
        .arg(f("r1cs"))
        .arg("--wtns")
        .arg(f("wtns"))
        .arg("--out")
        .arg(f("report.json"))
        .output()
        .unwrap()
}

#[test]
fn build_writes_an_enveloped_report_and_the_sound_circuit_refuses_v_plus_l() {
    let dir = measure::testing::scratch("zksnark-optimized", "build");
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.schema.json");
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    // A small v, so that v + L fits the sound circuit's 251 bits.
    let v = Fr::from(42u8);
    let r = Fr::from(7u8);
    let c = commit(&v, &r);
    for variant in Variant::ALL {
        let s = sample(Statement::Rsm, TreeHash::Poseidon, variant, 5, &mut rng);
        let Public::Rsm { v: sv, root } = &s.assignment.public else {
            unreachable!()
        };
        let w = &s.assignment.witness;
        let honest = rsm_inputs(*sv, s.r, &w.siblings, &w.right, root);
        let out = build(
            &dir,
            &format!("{}-honest", variant.name()),
            &honest,
            variant,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report = dir.join(format!("{}-honest.report.json", variant.name()));
        measure::testing::validate_enveloped(&schema, &report).unwrap();
        let body = &measure::testing::read_json(&report)["body"];
        assert_eq!(body["variant"], variant.name());
        assert_eq!(
            body["fixes"].as_array().unwrap().is_empty(),
            variant == Variant::AsPublished
        );

        // A tree holding only Com(42, 7): claim v + L.
        let leaf = zksnark_optimized::sample::leaf(Statement::Rsm, TreeHash::Poseidon, &v, &c);
        let (_, root, siblings, right) = zksnark_optimized::sample::tree_of(
            vec![leaf.clone(), leaf],
            zksnark_optimized::sample::pad(Statement::Rsm, TreeHash::Poseidon, variant),
            0,
        );
        let lifted = v + Fr::from_bigint(subgroup_order()).unwrap();
        let out = build(
            &dir,
            &format!("{}-lifted", variant.name()),
            &rsm_inputs(lifted, r, &siblings, &right, &root),
            variant,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        match variant {
            Variant::AsPublished => assert!(out.status.success(), "{stderr}"),
            Variant::Sound => {
                assert_eq!(out.status.code(), Some(2), "{stderr}");
                assert!(stderr.contains("in \"v: 251 bits, below L\""), "{stderr}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
