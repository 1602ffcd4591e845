"""Parsers on the paper's six sample reports, on our formats, and on malformed input."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from analysis.errors import ReportError
from analysis.experiments.cpsnark_sm.parser import PROVE, VERIFY, WITNESS, parse_cp_json, parse_cp_text
from analysis.experiments.cpsnark_sm.synthetic import cp_json
from analysis.experiments.db_sm_rsm.parser import parse_db_json, parse_db_text
from analysis.experiments.db_sm_rsm.synthetic import db_json
from analysis.experiments.zksnark_sm_rsm.parser import PAPER_DUPLICATES as PAPER_ZK_DUPLICATES
from analysis.experiments.zksnark_sm_rsm.parser import PAPER_FILES as PAPER_ZK
from analysis.experiments.zksnark_sm_rsm.parser import parse_zk_json, parse_zk_text
from analysis.experiments.zksnark_sm_rsm.synthetic import zk_json
from analysis.tests import synth

DB = "report-db-sm-rsm-n10000-m4"
CP = "report-benarroch-cpsnark-sm-n10000"
ROOT = Path(__file__).resolve().parents[2]


def sample(crate: str) -> dict[str, Any]:
    """A crate's sample report (its data/sample-report.json, a real run of its bench)."""
    data: dict[str, Any] = json.loads((ROOT / crate / "data/sample-report.json").read_text())
    return data


@pytest.mark.parametrize(
    ("parser", "crate", "tool", "run"),
    [
        ("cmix", "cmix", "cmix-bench", "c500-t1"),
        ("mithril", "mithril", "mithril-bench", "t1"),
        ("veccom", "veccom", "veccom-bench", "t1_2"),
    ],
)
def test_a_report_of_another_tool_or_format_is_refused(
    tmp_path: Path, parser: str, crate: str, tool: str, run: str
) -> None:
    """The envelope names the tool and the format: another's report is an error naming the line.
    A run without a report is a problem."""
    module = importlib.import_module(f"analysis.experiments.{parser}.parser")
    assert module.problems(tmp_path) == ["no report.json"]
    read = module.report_rows
    d = sample(crate)
    p = tmp_path / "report.json"
    p.write_text(json.dumps(dict(d, tool="another-bench"), indent=1))
    with pytest.raises(ReportError, match=rf'report\.json:\d+: expected "tool": "{tool}"'):
        read(p, run)
    p.write_text(json.dumps({k: v for k, v in d.items() if k != "format"}, indent=1))
    with pytest.raises(ReportError, match=r'expected "format": "tmbench-report/1"'):
        read(p, run)


def test_all_six_paper_reports_parse(paper_dir: Path) -> None:
    files = sorted(p.name for p in paper_dir.iterdir() if p.name.startswith("report-"))
    assert len(files) == 6
    db = parse_db_text(paper_dir / DB, "paper")
    assert (db.n, db.m) == (10000, 4)
    for st in ("sm", "rsm"):
        a = parse_zk_text(paper_dir / PAPER_ZK[st], "paper")
        b = parse_zk_text(paper_dir / PAPER_ZK_DUPLICATES[st], "paper")
        assert a.statement == b.statement == st
        assert a.sections == b.sections  # the duplicate pair is the same run
        assert a.constraints == (35091 if st == "sm" else 35092)
        assert a.status == "PASSED" and (a.n, a.depth, a.hash) == (10000, 14, "poseidon")
    cp = parse_cp_text(paper_dir / CP, "paper", n=10000)
    assert cp.groups[PROVE].mean_s == pytest.approx(0.22577)
    assert cp.groups[VERIFY].ci_low_s == pytest.approx(0.031854)
    assert cp.groups[WITNESS].ci_high_s == pytest.approx(0.78446)


def test_db_text_structure(paper_dir: Path) -> None:
    db = parse_db_text(paper_dir / DB, "paper")
    assert len(db.statuses) == 18 and all(db.statuses.values())
    # The two colon-less status lines are recognised.
    assert "status_pkcomms" in db.statuses and "status_decshares_blsigs_rev" in db.statuses
    assert db.sizes["size of DPK_BBSPlusSig proofs"] == 11.043548583984375
    fsm = ("main", "forward set membership")
    assert db.timer(fsm, "mixer 2 total") == 500
    assert db.timer(fsm, "verifier total") == 210
    assert db.timer(("main",), "forward set membership") == 2200
    assert db.timer((), "main") == 17000
    leaf = [t for t in db.timers if t.label == "mixer 3: creating dpk_bbsplussig challenge"]
    assert leaf[0].party == "mixer 3" and leaf[0].seconds == 0.27
    assert leaf[0].path == ("main", "reverse set membership", "dpk_bbsplussig_nizkproofs")


def test_db_json_roundtrip(paper_dir: Path, tmp_path: Path) -> None:
    f = db_json(paper_dir / DB, tmp_path / "r", 100, 2, 0.01, fail="status_pk_bl")
    rep = parse_db_json(f)
    assert (rep.n, rep.m, rep.curve, rep.mode, rep.threads) == (100, 2, "bn254", "fast", 1)
    assert rep.statuses["status_pk_bl"] is False
    assert rep.timer(("main", "forward set membership"), "mixer 1 total") == pytest.approx(5.0)
    assert rep.machine is not None and rep.fixes
    assert rep.passed is False and rep.seed == synth.SEED and rep.transport == "local"
    assert rep.keys == "seed"


def test_db_verdict_is_the_envelopes(paper_dir: Path, tmp_path: Path) -> None:
    """The envelope's passed decides; the statuses and the failure say why a run did not pass."""
    from analysis.experiments.db_sm_rsm.parser import db_rows, problems

    run = tmp_path / "r"
    f = db_json(paper_dir / DB, run, 100, 2, 0.01)
    assert problems(run) == [] and db_rows(parse_db_json(f), "r").runs[0].ok
    # A run that stopped: the party and step it stopped at, whatever its (partial) statuses say.
    doc = json.loads(f.read_text())
    doc["passed"] = False
    doc["body"]["failure"] = {"party": "mixer 1", "step": "main > mixing", "error": "link cut"}
    f.write_text(json.dumps(doc))
    info = db_rows(parse_db_json(f), "r").runs[0]
    assert not info.ok and info.failed == ["FAILED: mixer 1 at main > mixing: link cut"]
    assert problems(run) == ["FAILED: mixer 1 at main > mixing: link cut"]


def test_synthetic_reports_follow_the_programs_schemas(paper_dir: Path, tmp_path: Path) -> None:
    """The synthetic reports the tests feed the analysis are shaped as the programs write them:
    the envelope's schema and each crate's body schema."""
    jsonschema = pytest.importorskip("jsonschema")
    root = Path(__file__).resolve().parents[2]
    envelope = json.loads((root / "measure/schema/envelope.schema.json").read_text())
    for f, crate in [
        (db_json(paper_dir / DB, tmp_path / "d", 100, 2, 0.01), "db-sm-rsm"),
        (cp_json(tmp_path / "c", 100), "cpsnark-sm"),
    ]:
        doc = json.loads(f.read_text())
        jsonschema.validate(doc, envelope, cls=jsonschema.Draft202012Validator)
        body = json.loads((root / crate / "docs/report.schema.json").read_text())
        jsonschema.validate(doc["body"], body, cls=jsonschema.Draft202012Validator)


def test_zk_and_cp_json(tmp_path: Path) -> None:
    reps = parse_zk_json(zk_json(tmp_path / "z", "rsm", 100, 1.5, status="FAILED"))
    by = {r.prover: r for r in reps}
    assert by["native"].status == "FAILED" and by["native"].sections["PROVER"]["real"] == 1.5
    assert by["native"].section_components["PROVER"]["proof"]["real"] == pytest.approx(1.35)
    # The envelope's verdict is every prover's, and says what failed.
    assert {r.passed for r in reps} == {False}
    assert by["wasm"].failed == ["prover native (zokrates): status FAILED"]
    # snarkjs is a prover of its own, checked by the native verifier.
    assert by["snarkjs"].checked_by == {"native": True} and by["native"].checked_by == {"snarkjs": True}
    assert by["snarkjs"].powers_of_tau["power"] == 16 and by["snarkjs"].powers_of_tau["native"] == 1.0
    ok = parse_zk_json(zk_json(tmp_path / "ok", "rsm", 100, 1.5, variant="as-published"))
    assert {(r.passed, r.circuit_variant, tuple(r.fixes)) for r in ok} == {(True, "as-published", ())}
    cp = parse_cp_json(cp_json(tmp_path / "c", 100))
    assert cp.n == 100 and cp.groups[PROVE].mean_s == 1.1 and cp.passed and cp.security == "128"
    assert cp.versions["cpsnark-bench"] == "0.1.0" and cp.threads == 1


def test_cp_verdict_is_the_envelopes(tmp_path: Path) -> None:
    """A cpsnark-bench report whose envelope says passed false flags its run, whatever its body."""
    from analysis.experiments.cpsnark_sm.parser import cp_rows, problems

    f = cp_json(tmp_path / "c", 100, passed=False)
    rep = parse_cp_json(f)
    assert not rep.passed
    parsed = cp_rows(rep, "n100-t1")
    assert not parsed.runs[0].ok and all(r["run_ok"] is False for r in parsed.rows)
    assert problems(tmp_path / "c") == ["a proof did not verify (passed is false)"]
    # A report of another tool is refused by name.
    doc = json.loads(f.read_text())
    doc["tool"] = "db-sm-rsm"
    f.write_text(json.dumps(doc))
    with pytest.raises(ReportError) as e:
        parse_cp_json(f)
    assert "cpsnark-bench" in e.value.expected


def _write(tmp_path: Path, name: str, text: str) -> Path:
    f = tmp_path / name
    f.write_text(text)
    return f


def test_truncated_db_report_names_file_and_line(paper_dir: Path, tmp_path: Path) -> None:
    lines = (paper_dir / DB).read_text().splitlines()[:120]
    f = _write(tmp_path, "trunc.txt", "\n".join(lines) + "\n")
    with pytest.raises(ReportError) as e:
        parse_db_text(f)
    assert e.value.path == str(f) and e.value.line == 121
    assert "main time" in e.value.expected and "truncated" in e.value.expected
    assert f"{f}:121" in str(e.value)


def test_db_text_settings_lines(paper_dir: Path, tmp_path: Path) -> None:
    """Our report's header states the security level and where the keys came from, and its key
    generation is a timer of its own."""
    lines = (paper_dir / DB).read_text().splitlines()
    assert lines[2].strip() == "number of mix-servers: 4" and lines[3] == " main"
    keys = "     keys: derived from the public seed (not secret), from the key cache"
    ours = [*lines[:3], "     security: 128", lines[3], "     key generation time: 5.4 s", keys, *lines[4:]]
    rep = parse_db_text(_write(tmp_path, "ours.txt", "\n".join(ours)))
    assert (rep.security, rep.keys, rep.timer(("main",), "key generation")) == (
        "128",
        "derived from the public seed (not secret), from the key cache",
        5.4,
    )


def test_db_text_hold_at_line(paper_dir: Path, tmp_path: Path) -> None:
    """A run given the test option --hold-at says so in its report, which stays readable; a line
    that only looks like it is refused."""
    lines = (paper_dir / DB).read_text().splitlines()
    held = "     hold-at: mixing (a test option): not held, the run resumed from its checkpoint"
    rep = parse_db_text(_write(tmp_path, "held.txt", "\n".join([*lines[:4], held, *lines[4:]])))
    assert rep.hold_at == "mixing (a test option): not held, the run resumed from its checkpoint"
    assert parse_db_text(_write(tmp_path, "plain.txt", "\n".join(lines))).hold_at is None
    bad = held.replace("hold-at:", "hold-at")
    with pytest.raises(ReportError) as e:
        parse_db_text(_write(tmp_path, "bad.txt", "\n".join([*lines[:4], bad, *lines[4:]])))
    assert e.value.line == 5


def test_malformed_db_line(paper_dir: Path, tmp_path: Path) -> None:
    lines = (paper_dir / DB).read_text().splitlines()
    assert lines[39].endswith("mixer 2: re-encryption time: 4.5 s")
    lines[39] = lines[39].replace("time: 4.5 s", "time: fast s")
    f = _write(tmp_path, "bad.txt", "\n".join(lines))
    with pytest.raises(ReportError) as e:
        parse_db_text(f)
    assert e.value.line == 40 and "timer line" in e.value.expected
    lines = (paper_dir / DB).read_text().splitlines()
    lines[10] = "  " + lines[10]
    with pytest.raises(ReportError, match=r"bad2.txt:11: expected an indentation"):
        parse_db_text(_write(tmp_path, "bad2.txt", "\n".join(lines)))


def test_truncated_and_malformed_zk(paper_dir: Path, tmp_path: Path) -> None:
    lines = (paper_dir / PAPER_ZK["sm"]).read_text().splitlines()
    f = _write(tmp_path, "z.txt", "\n".join(lines[:-3]))  # cut in VERIFIER's time lines
    with pytest.raises(ReportError) as e:
        parse_zk_text(f)
    assert e.value.line == len(f.read_text().splitlines()) + 1 and "VERIFIER" in e.value.expected
    bad = [ln.replace("0m2.178s", "2.178") for ln in lines]
    with pytest.raises(ReportError, match=r"z2.txt:\d+: expected a bash time line"):
        parse_zk_text(_write(tmp_path, "z2.txt", "\n".join(bad)))
    nostatus = [ln for ln in lines if ln != "PASSED"]
    with pytest.raises(ReportError, match="PASSED or FAILED"):
        parse_zk_text(_write(tmp_path, "z3.txt", "\n".join(nostatus)))


def test_truncated_and_malformed_cp(paper_dir: Path, tmp_path: Path) -> None:
    lines = (paper_dir / CP).read_text().splitlines()
    cut = next(i for i, ln in enumerate(lines) if "creating witness" in ln and ln.startswith("Benchmarking"))
    with pytest.raises(ReportError, match=r"creating witness.*truncated"):
        parse_cp_text(_write(tmp_path, "c.txt", "\n".join(lines[: cut + 1])))
    bad = [ln.replace("[224.50 ms", "[224.50 parsecs") for ln in lines]
    with pytest.raises(ReportError, match=r"c2.txt:\d+: expected a criterion line"):
        parse_cp_text(_write(tmp_path, "c2.txt", "\n".join(bad)))


def test_malformed_json(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"j.json:2: expected valid JSON"):
        parse_db_json(_write(tmp_path, "j.json", '{"experiment":\n  db}'))
    f = zk_json(tmp_path / "z", "sm", 10, 1.0)
    d = json.loads(f.read_text())
    del d["body"]["circuits"]["zokrates"]["provers"]["native"]["sections"]["PROVER"]["user"]
    f.write_text(json.dumps(d))
    with pytest.raises(ReportError, match=r"circuits.zokrates.provers.native.sections.PROVER.user"):
        parse_zk_json(f)


def test_text_only_runs_take_parameters_from_the_directory(paper_dir: Path, tmp_path: Path) -> None:
    from analysis.config import RunConfig
    from analysis.tidy import collect_ours

    raw = tmp_path / "raw"
    d = raw / "db-sm-rsm" / "n10000-m4-bls12-381-paper-spaper-t2"
    d.mkdir(parents=True)
    (d / "report.txt").write_text((paper_dir / DB).read_text())
    z = raw / "zksnark-sm-rsm" / "rsm-poseidon-n10000-t2"
    z.mkdir(parents=True)
    (z / "report-native.txt").write_text((paper_dir / PAPER_ZK["rsm"]).read_text())
    c = raw / "cpsnark-sm" / "n10000-t2"
    c.mkdir(parents=True)
    (c / "report.txt").write_text((paper_dir / CP).read_text())
    (raw / "cpsnark-sm" / "n50-t1").mkdir()  # a run that left no report
    (raw / "cpsnark-sm" / "not-a-run").mkdir()  # a directory of someone else's: left out, listed
    parsed, unconfigured = collect_ours(tmp_path, RunConfig())
    rows, runs, notes = parsed.rows, parsed.runs, parsed.notes
    assert unconfigured == ["cpsnark-sm/not-a-run"]
    assert {(r.experiment, r.threads) for r in runs} == {
        ("db-sm-rsm", 2), ("zksnark-sm-rsm", 2), ("cpsnark-sm", 2),
    }  # fmt: skip
    db = next(r for r in rows if r["experiment"] == "db-sm-rsm")
    assert (db["curve"], db["mode"], db["security"], db["n"], db["m"]) == (
        "bls12-381",
        "paper",
        "paper",
        10000,
        4,
    )
    zk = next(r for r in rows if r["experiment"] == "zksnark-sm-rsm")
    assert (zk["prover"], zk["statement"], zk["hash"]) == ("native", "rsm", "poseidon")
    assert notes == ["cpsnark-sm/n50-t1: no report (the run did not finish)"]


DATA = Path(__file__).parent / "data"


def test_our_zk_driver_output(tmp_path: Path) -> None:
    """Real output of `node zksnark-sm-rsm/run.mjs --statement rsm --n 16 --hash poseidon --threads 1
    --provers wasm,native --circuits zokrates` (the sound variant)."""
    src = DATA / "zk-rsm-poseidon-n16-t1"
    by = {r.prover: r for r in parse_zk_json(src / "report.json")}
    assert set(by) == {"wasm", "native"}
    for prover, js in by.items():
        text = parse_zk_text(src / f"report-{prover}.txt", "ours", prover)
        assert text.statement == js.statement == "rsm" and text.n == js.n == 16 and text.depth == 4
        assert text.constraints == js.constraints == 30454 and text.status == js.status == "PASSED"
        assert js.passed is True and js.circuit_variant == "sound"
        assert [f.split(":")[0] for f in js.fixes] == ["Z1", "Z2"]
        # The text rounds to milliseconds, as bash's `time` does.
        for s in ("COMPUTATION", "TRUSTED SETUP", "PROVER", "VERIFIER"):
            for k in ("real", "user", "sys"):
                assert text.sections[s][k] == pytest.approx(js.sections[s][k], abs=6e-4)
        assert set(text.components["PROVER"]) == {"witness", "proof"}
        assert js.threads == 1 and js.section_components["PROVER"]["proof"]["user"] > 0
        assert "None" not in js.versions.values()

    import shutil

    from analysis.studies.traceable_mixnets.picks import zk_prove
    from analysis.tidy import collect

    shutil.copytree(src, tmp_path / "raw" / "zksnark-sm-rsm" / "rsm-poseidon-n16-t1")
    df = collect(tmp_path, None).df
    pick = zk_prove(df, "ours", "rsm", 16)
    native = by["native"].sections["PROVER"]
    assert pick is not None and pick.prover == "native"  # the claims use the native prover
    assert pick.value == pytest.approx(native["user"] + native["sys"])
    # Without a native run, the wasm prover stands in (and the note says so).
    pick = zk_prove(df[df["prover"] != "native"], "ours", "rsm", 16)
    assert pick is not None and pick.prover == "wasm"


def test_veccom_sample_report_and_reference_figures(tmp_path: Path) -> None:
    """The crate's sample report (a real veccom-bench run) and the published reference figures."""
    from analysis.experiments.veccom import parser as veccom

    rows, info = veccom.report_rows(
        Path(veccom.__file__).parents[2] / "veccom/data/sample-report.json", "t1_2"
    )
    assert info.ok and info.failed == []
    ops = {(r["variant"], r["section"]) for r in rows if r["metric"] == "cpu_median"}
    assert ("pairing-bls12-381", "verify") in ops and ("merkle-sha256", "commit") in ops
    assert any(r["metric"] == "lower_bound_cpu" for r in rows)
    published = veccom.load_reference(tmp_path)
    pairing = [r for r in published.rows if r["variant"] == "pairing-bls12-381" and r["n"] == 100]
    verify = next(r for r in pairing if r["section"] == "verify")
    assert verify["value"] == pytest.approx(3.6117e-3) and verify["source"] == "reference"
    # A failed check makes the run count as failed.
    d = sample("veccom")
    d["body"]["rows"][3]["verified"] = False
    d["passed"] = False
    run = tmp_path / "raw" / "veccom" / "t1_2"
    run.mkdir(parents=True)
    (run / "report.json").write_text(json.dumps(d))
    problems = veccom.problems(run)
    bad = d["body"]["rows"][3]
    assert problems == [f"{bad['scheme']} {bad['operation']} n={bad['n']} t={bad['threads']}"]
    # The verdict is the envelope's: a report that says it failed fails, though every row verified.
    d = sample("veccom")
    d["passed"] = False
    (run / "report.json").write_text(json.dumps(d))
    assert veccom.problems(run) == ["the report says the run did not pass"]


def test_cmix_sample_report_and_reference_figures(tmp_path: Path) -> None:
    """The crate's sample report (a real cmix-bench run) and the thesis's published figures."""
    from analysis.experiments.cmix import parser as cmix

    ref = Path(cmix.__file__).parents[2] / "cmix/data/sample-report.json"
    d = json.loads(ref.read_text())
    rows, info = cmix.report_rows(ref, "c500-t1_2")
    assert info.ok and info.failed == [] and info.threads == 1
    steps = {
        (r["variant"], r["threads"], r["party"], r["section"])
        for r in rows
        if r["metric"] == "cpu_mean" and r["party"] in cmix.NODES
    }
    groups, threads = ("ec", "mg", "mg-full"), (1, 2)
    assert steps == {
        (g, t, f"node {k}", s) for g in groups for t in threads for k in range(3) for s in cmix.STEPS
    }
    # The clients' part of realpre (blinding their messages) is theirs, not a node's.
    assert {r["section"] for r in rows if r["party"] == "clients" and r["metric"] == "cpu_mean"} == {
        "realpre"
    }
    # Every figure of a step is the report's own: ec's prepre at the first node, one thread.
    run = next(r for r in d["body"]["runs"] if r["group"] == "ec" and r["threads"] == 1)
    step = next(s for s in run["steps"] if s["node"] == 0 and s["step"] == "prepre")
    got = {r["metric"]: r["value"] for r in rows if r["variant"] == "ec" and r["threads"] == 1
           and r["party"] == "node 0" and r["section"] == "prepre" and r["metric"] != "ops"}  # fmt: skip
    for kind in ("user", "sys", "cpu", "wall"):
        for stat in ("mean", "sd", "median"):
            assert got[f"{kind}_{stat}"] == step[f"{kind}_s"][stat]
            assert got[f"net_{kind}_{stat}"] == step["net"][f"{kind}_s"][stat]
    assert (
        got["bytes_sent_mean"] == step["bytes_sent"]["mean"] and got["lower_bound"] == step["lower_bound_s"]
    )
    assert (
        got["overhead"] == step["overhead"] and got["cpu_per_payload_byte"] == step["cpu_per_payload_byte_s"]
    )
    assert all(r["n"] == 500 for r in rows if r["metric"] == "cpu_mean")
    # The envelope's load and whether the keys came from the seed; no verdicts on targets.
    load = {r["metric"] for r in rows if r["label"] == "one-minute load average"}
    assert load == {"load_start", "load_end"}
    assert [r["value"] for r in rows if r["metric"] == "seeded"] == [float(d["seed"] is not None)]
    assert not [r for r in rows if r["metric"] in ("target_met", "thesis_over_ours")]

    published = cmix.load_reference(tmp_path)
    prepre = {r["variant"]: r for r in published.rows if r["section"] == "prepre"}
    assert prepre["ec"]["value"] == 3.67 and prepre["mg"]["value"] == 19.19
    assert all(
        r["source"] == "reference" and r["n"] == 500 and r["metric"] == "user_mean" for r in prepre.values()
    )
    payload = {r["variant"]: r["value"] for r in published.rows if r["metric"] == "payload_bytes"}
    assert payload == {"ec": 228.0, "mg": 236.0}

    # The envelope's passed is the verdict; the runs' outcomes say what went wrong.
    out = tmp_path / "raw" / "cmix" / "c500-t1_2"
    out.mkdir(parents=True)
    runs = d["body"]["runs"]
    runs[2]["status"] = "FAILED"
    runs[2]["checks"].update(delivered_exactly_once=False, problems=["recipient 7 got 2 messages"])
    runs[4]["checks"]["permuted"] = False
    d["passed"] = False
    (out / "report.json").write_text(json.dumps(d))
    assert cmix.problems(out) == [
        "mg clients=500 threads=1: FAILED; recipient 7 got 2 messages",
        "mg-full clients=500 threads=1: output order not permuted",
    ]
    d["passed"] = True
    (out / "report.json").write_text(json.dumps(d))
    assert cmix.problems(out) == []
    # A report that did not pass counts as failed even where no run says why.
    d = json.loads(ref.read_text())
    d["passed"] = False
    (out / "report.json").write_text(json.dumps(d))
    assert cmix.problems(out) == ["the report did not pass"]
    # A run with an injected fault is explained by whether the fault was detected.
    for r in d["body"]["runs"]:
        r["tamper"], r["status"] = "tag:1:3", "DETECTED"
    d["body"]["runs"][0]["status"] = "PASSED"
    (out / "report.json").write_text(json.dumps(d))
    assert cmix.problems(out) == ["ec clients=500 threads=1: PASSED (fault tag:1:3 not detected)"]


def test_cmix_malformed_report_and_reference_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from analysis.experiments.cmix import parser as cmix

    d = sample("cmix")
    p = tmp_path / "report.json"
    del d["body"]["runs"][1]["steps"][3]["wall_s"]
    p.write_text(json.dumps(d))
    with pytest.raises(ReportError, match=r"expected runs\[1\]\.steps\[3\]\.wall_s to be an object"):
        cmix.report_rows(p, "c500-t1")
    figures = tmp_path / "reference-figures.csv"
    figures.write_text(
        "quantity,group,clients,value,unit,machine,source\nprepre_user_s_per_node,ec,500,3.67,min,x,y\n"
    )
    monkeypatch.setattr(cmix, "REFERENCE_FILE", figures)
    with pytest.raises(ReportError, match=r"reference-figures\.csv:2: expected a unit of"):
        cmix.load_reference(tmp_path)
    monkeypatch.setattr(cmix, "REFERENCE_FILE", tmp_path / "gone.csv")
    with pytest.raises(ReportError, match=r"gone\.csv: expected the thesis's figures"):
        cmix.load_reference(tmp_path)


def test_mithril_sample_report_and_reference_figures(tmp_path: Path) -> None:
    """The crate's sample report (a real mithril-bench run) and the published reference figures."""
    from analysis.experiments.mithril import parser as mithril

    ref = Path(mithril.__file__).parents[2] / "mithril/data/sample-report.json"
    envelope = json.loads(ref.read_text())
    d = envelope["body"]
    rows, info = mithril.report_rows(ref, "t1_2")
    assert info.ok and info.failed == [] and info.threads == 1
    native = [r for r in rows if r["variant"] == "native" and r["metric"] == "cpu_median"]
    assert {r["section"] for r in native} == set(mithril.OPERATIONS)
    assert {r["curve"] for r in native} == {"bls12-381"}
    # Every native figure is the report's own: b_total at n = 64, one thread.
    src = next(
        r for r in d["native"]["rows"] if r["operation"] == "b_total" and r["n"] == 64 and r["threads"] == 1
    )
    got = {
        r["metric"]: r["value"]
        for r in rows
        if r["variant"] == "native" and r["section"] == "b_total" and r["n"] == 64 and r["threads"] == 1
    }
    assert got["cpu_median"] == src["cpu_s"]["median"] and got["wall_max"] == src["wall_s"]["max"]
    assert got["lower_bound_cpu"] == src["lower_bound"]["cpu_s"]["median"] and got["status"] == 1.0
    # Batch rows carry the number of aggregates as n.
    batch = {r["n"] for r in native if r["section"] == "batch_verify"}
    assert batch == {r["aggregates"] for r in d["native"]["rows"] if r["operation"] == "batch_verify"}
    # The circuit: every counted size (both BLS checks) and every proof's phases.
    sizes = {(r["n"], r["mode"]) for r in rows if r["section"] == "size" and r["metric"] == "advice_cells"}
    assert sizes == {(s["n"], s["pairing_check"]) for s in d["circuit"]["sizes"] + d["circuit"]["ablation"]}
    proof = d["circuit"]["proofs"][-1]
    at = {
        (r["section"], r["metric"]): r["value"]
        for r in rows
        if r["variant"] == "circuit" and r["n"] == proof["n"] and r["section"] in (*mithril.PHASES, "proof")
    }
    assert at[("prove_total", "cpu")] == proof["prove_total"]["cpu_s"]
    assert at[("proof", "peak_rss")] == proof["peak_rss_mib"] and at[("proof", "verified")] == 1.0
    slope = next(
        r for r in rows if r["section"] == "fit" and r["label"] == "advice_cells" and r["metric"] == "slope"
    )
    assert slope["value"] == d["circuit"]["fit"]["advice_cells"]["slope"] < 300_000
    extrapolated = {r["n"] for r in rows if r["section"] == "extrapolated"}
    assert extrapolated == set(envelope["parameters"]["extrapolate"])
    design = [r for r in rows if r["section"] == "reference design" and r["metric"] == "cells_per_signature"]
    assert design[0]["value"] == d["circuit"]["reference_design"]["cells_per_signature"]

    published = mithril.load_reference(tmp_path)
    m1 = [r for r in published.rows
          if r["metric"] == "prove_published" and "M1" in r["machine"] and r["n"] == 8]  # fmt: skip
    assert min(r["value"] for r in m1) == 114.6814 and all(r["source"] == "reference" for r in m1)
    verify = next(r for r in published.rows if r["metric"] == "verify_published" and r["variant"] == "msp_a")
    assert verify["value"] == pytest.approx(72.7713e-3) and verify["unit"] == "s"
    killed = {
        (r["n"], r["machine"].split(",")[0])
        for r in published.rows
        if r["metric"] == "status" and r["value"] == 0
    }
    assert killed == {(128, "Xeon Silver 4214 server"), (32, "Apple M1")}

    # A proof that did not verify, a native check, a circuit child killed: the run does not count.
    out = tmp_path / "raw" / "mithril" / "t1_2"
    out.mkdir(parents=True)
    d["circuit"]["proofs"][0]["rejects_changed_proof"] = False
    d["native"]["rows"][3]["verified"] = False
    d["circuit"]["failures"] = [{"part": "prove", "n": 64, "error": "killed by a signal (out of memory?)"}]
    envelope["passed"] = False
    (out / "report.json").write_text(json.dumps(envelope))
    r3 = d["native"]["rows"][3]
    assert mithril.problems(out) == [
        f"native {r3['operation']} n={r3['n']} threads={r3['threads']}: not verified",
        f"proof n={d['circuit']['proofs'][0]['n']}: rejects changed proof failed",
        "circuit prove n=64: killed by a signal (out of memory?)",
    ]
    envelope = json.loads(ref.read_text())
    envelope["body"]["native"]["checks"]["cancellation"]["passed"] = False
    envelope["passed"] = False
    (out / "report.json").write_text(json.dumps(envelope))
    assert mithril.problems(out) == ["cancellation check failed"]
    # The verdict is the envelope's: a report that says it failed fails.
    envelope = json.loads(ref.read_text())
    envelope["passed"] = False
    (out / "report.json").write_text(json.dumps(envelope))
    assert mithril.problems(out) == ["the report says the run did not pass"]


def test_mithril_malformed_report_and_reference_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from analysis.experiments.mithril import parser as mithril

    d = sample("mithril")
    p = tmp_path / "report.json"
    del d["body"]["native"]["rows"][2]["cpu_s"]
    p.write_text(json.dumps(d))
    with pytest.raises(ReportError, match=r"expected native\.rows\[2\]\.cpu_s to be an object"):
        mithril.report_rows(p, "t1")
    d = sample("mithril")
    d["body"]["circuit"]["proofs"][0]["prove_total"]["wall_s"] = "slow"
    p.write_text(json.dumps(d))
    with pytest.raises(
        ReportError, match=r"expected circuit\.proofs\[0\]\.prove_total\.wall_s to be a number"
    ):
        mithril.report_rows(p, "t1")
    figures = tmp_path / "reference-figures.csv"
    figures.write_text("experiment,keys_in,n,prove_s,status\nmsp_c,G1,4,70.5,ok\n")
    monkeypatch.setattr(mithril, "REFERENCE_FILE", figures)
    with pytest.raises(ReportError, match=r"reference-figures\.csv:2: expected experiment msp_a or msp_b"):
        mithril.load_reference(tmp_path)
    figures.write_text("experiment,keys_in,n,prove_s,status\nmsp_b,G1,4,fast,ok\n")
    with pytest.raises(ReportError, match=r"reference-figures\.csv:2: expected a number in column prove_s"):
        mithril.load_reference(tmp_path)
    monkeypatch.setattr(mithril, "REFERENCE_FILE", tmp_path / "gone.csv")
    with pytest.raises(ReportError, match=r"gone\.csv: expected the reference figures"):
        mithril.load_reference(tmp_path)
