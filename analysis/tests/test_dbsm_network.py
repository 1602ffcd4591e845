"""db-sm-rsm's tls runs: their rows in the tidy table, what is derived from them, and the PDF part
that shows them (or says in one line that there is none)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from analysis.config import RunConfig
from analysis.errors import ReportError
from analysis.experiments.collab_groth16.synthetic import collab_json
from analysis.experiments.db_sm_rsm import network as net
from analysis.experiments.db_sm_rsm import section as dbsm
from analysis.experiments.db_sm_rsm.parser import STEPS, db_rows, parse_db_json
from analysis.experiments.db_sm_rsm.section_network import NO_TLS
from analysis.experiments.db_sm_rsm.synthetic import db_json
from analysis.parse.common import Parsed
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.studies.traceable_mixnets.baselines import beside_dbsm
from analysis.tidy import Collection, to_frame

DB = "report-db-sm-rsm-n10000-m4"
RTT = {"none": None, "lan": 0.0002, "wan": 0.1}
# The steps below each section a process of the synthetic run has: (step, deeper step or None).
STEPS_OF = {
    "mixing": [("re-encryption and permutation", None), ("decryption of output messages", None)],
    "forward set membership": [("get_verfsigs", None), ("get_blsigs", "decrypt blinded signatures")],
    "reverse set membership": [("get_blsigs_rev", "decryption of blinded BBS+ signatures")],
}


def stats(sent: int = 0, received: int = 0, waited: float = 0.0, hops: int = 0) -> dict[str, Any]:
    return {
        "bytes_sent": sent,
        "bytes_received": received,
        "posts": int(sent > 0),
        "reads": int(received > 0),
        "rounds": int(waited > 0),
        "waited_s": waited,
        "hops": hops,
    }


def network_block(profile: str, m: int, input_bytes: int) -> dict[str, Any]:
    """A tls run's network block: each process does each section in 2 s of wall time (1 s of
    CPU for a mixer), each step of it posting 1000 bytes and waiting 0.5 s, the deeper step
    another 500 bytes and 0.25 s; the driver posts the senders' inputs."""
    rtt = RTT[profile]
    who = ["driver", *(f"mixer {k}" for k in range(m)), "verifier"]
    rows: list[dict[str, Any]] = []
    for p in who:
        rows.append({"party": p, "path": [], "label": "main", "start_s": 0.0, "wall_s": 10.0, "cpu_s": 3.0,
                     "net": stats(sent=input_bytes if p == "driver" else 0)})  # fmt: skip
        cpu = 1.0 if p.startswith("mixer") else 0.1
        for i, section in enumerate(net.SECTIONS):
            start = 2.0 * i
            rows.append({"party": p, "path": ["main"], "label": section, "start_s": start, "wall_s": 2.0,
                         "cpu_s": cpu, "net": stats()})  # fmt: skip
            for j, (step, deeper) in enumerate(STEPS_OF.get(section, [])):
                at = ["main", section]
                rows.append({"party": p, "path": at, "label": step, "start_s": start + j, "wall_s": 1.0,
                             "cpu_s": cpu / 2, "net": stats(1000, 2000, 0.5, hops=2 + j)})  # fmt: skip
                if deeper is not None:
                    inner = stats(500, 500, 0.25, hops=3 + j)
                    rows.append({"party": p, "path": [*at, step], "label": deeper, "start_s": start + j,
                                 "wall_s": 0.5, "cpu_s": cpu / 4, "net": inner})  # fmt: skip
    sections = [{"section": s, "wall_s": 2.1, "hops": 3 + i, "network_floor_s": (3 + i) * (rtt or 0.0),
                 "party_wall_s": dict.fromkeys(who, 2.0)} for i, s in enumerate(net.SECTIONS)]  # fmt: skip
    summary = [{"party": p, "wall_s": 10.0, "cpu_s": 3.0, "net": stats(1000, 1000, 1.0, 4)} for p in who]
    return {
        "profile": profile, "spec": profile if rtt is None else f"name={profile},rtt=100ms,rate=100mbit",
        "emulated": rtt is not None, "rtt_s": rtt, "rate_bits_per_second": None if rtt is None else 10**8,
        "placement": "synthetic",
        "delay_line": None if rtt is None else {"packets": 10, "bytes": 5000, "cpu_s": 0.01,
                                                "late_mean_s": 1e-5, "late_max_s": 1e-4, "realtime": True},
        "parties": rows, "summary": summary, "sections": sections,
        "driver_link": {"bytes_sent": 10, "bytes_received": 20}, "post_bytes_by_author": {"mixer 0": 5},
    }  # fmt: skip


def tls_report(paper_dir: Path, out: Path, profile: str, n: int = 100, m: int = 2) -> Path:
    """Our synthetic local report (analysis.tests.synth) turned into a tls run on `profile`."""
    f = db_json(paper_dir / DB, out, n, m, 0.01)
    doc = json.loads(f.read_text())
    sizes = doc["body"]["sizes"]
    inputs = int(sizes["size of sender-uploaded input ciphertexts"] * 2**20 * 1.01)
    doc["parameters"].update(transport="tls", network=profile)
    doc["body"].update(transport="tls", network=network_block(profile, m, inputs))
    # As sent, every line twice its payload; the driver's audit took 0.5 s of CPU.
    doc["body"]["sizes_sent"] = {k: 2 * v for k, v in sizes.items()}
    doc["body"]["audit"] = {"passed": True, "cpu_s": 0.5, "wall_s": 0.6, "checks_recomputed": 22}
    f.write_text(json.dumps(doc))
    return f


def frame(paper_dir: Path, tmp_path: Path, profiles: tuple[str, ...] = ("none", "wan")) -> Any:
    parsed = Parsed()
    local = db_json(paper_dir / DB, tmp_path / "local", 100, 2, 0.01)
    parsed.add(db_rows(parse_db_json(local), "local"))
    for p in profiles:
        parsed.add(db_rows(parse_db_json(tls_report(paper_dir, tmp_path / p, p)), f"tls-{p}"))
    return to_frame(parsed.rows), parsed


def test_tls_rows_carry_the_transport_and_the_network(paper_dir: Path, tmp_path: Path) -> None:
    df, parsed = frame(paper_dir, tmp_path)
    assert set(df[df["run"] == "local"]["variant"]) == {"local"}
    wan = df[df["run"] == "tls-wan"]
    assert set(wan["variant"]) == {"tls/wan"}
    assert {r.settings["transport"] for r in parsed.runs} == {"local", "tls/none", "tls/wan"}
    rtt = wan[(wan["section"] == "network") & (wan["metric"] == "rtt")]
    assert list(rtt["label"]) == ["wan"] and list(rtt["value"]) == [0.1]
    steps = wan[wan["section"] == f"{STEPS} > main > mixing"]
    assert set(steps["metric"]) >= {"start", "wall", "cpu", "bytes_sent", "bytes_received", "waited", "hops"}
    q = wan[(wan["section"] == "network") & (wan["label"] == "forward set membership")]
    assert dict(zip(q["metric"], q["value"], strict=True)) == pytest.approx(
        {"query_wall": 2.1, "hops": 6.0, "network_floor": 0.6}
    )
    # The paper-format timers stay as they were: Figure 10 reads the one-process runs only.
    assert len(net.local_only(df)[lambda d: d["run"].str.startswith("tls")]) == 0
    assert len(net.local_only(df)[lambda d: d["run"] == "local"]) == len(df[df["run"] == "local"])


def test_the_audit_sits_beside_the_verifier_and_sizes_as_sent_beside_the_payload(
    paper_dir: Path, tmp_path: Path
) -> None:
    from analysis.experiments.db_sm_rsm.details import sizes_table

    df, _ = frame(paper_dir, tmp_path)
    audits = net.audit_table(df)
    assert len(audits) == 2
    row = audits.iloc[0]
    # The verifier's process: 0.1 s of CPU in each query section; the auditor 0.5 s; n = 100.
    assert row["verifier CPU / entry [s]"] == pytest.approx(0.2 / 100)
    assert row["auditor CPU / entry [s]"] == pytest.approx(0.5 / 100)
    assert row["auditor / verifier"] == pytest.approx(2.5)
    assert (row["checks redone"], row["audit passed"]) == (22, 1)
    sent = df[(df["run"] == "tls-wan") & (df["metric"] == "size_sent")]
    payload = df[(df["run"] == "tls-wan") & (df["metric"] == "size")]
    assert sorted(sent["value"]) == pytest.approx(sorted(2 * payload["value"]))
    # A one-process report counts the bytes its posts would take: the table has them too.
    local = sizes_table(net.local_only(df))
    assert local.filter(like=", as sent", axis=0).notna().all().all()


def test_a_malformed_network_block_names_the_key(paper_dir: Path, tmp_path: Path) -> None:
    f = tls_report(paper_dir, tmp_path / "bad", "wan")
    doc = json.loads(f.read_text())
    del doc["body"]["network"]["parties"][3]["net"]["hops"]
    f.write_text(json.dumps(doc))
    with pytest.raises(ReportError, match=r"body\.network\.parties\[3\]\.net\.hops"):
        db_rows(parse_db_json(f), "bad")


def test_sections_sum_their_steps_and_steps_their_subtrees(paper_dir: Path, tmp_path: Path) -> None:
    df, _ = frame(paper_dir, tmp_path)
    runs = net.tls_runs(df)
    assert [(r.profile, r.n, r.m) for r in runs] == [("none", 100, 2), ("wan", 100, 2)]
    sec = net.section_figures(df, "tls-wan")
    fsm = sec.loc["forward set membership: mixer 1"]
    # Two steps of 1000 bytes sent and 0.5 s waited, one deeper step of 500 bytes and 0.25 s.
    assert fsm["sent [MB]"] == pytest.approx(2500 / 1e6)
    assert fsm["waited [s]"] == pytest.approx(1.25)
    assert fsm["CPU [s]"] == 1.0 and fsm["wall [s]"] == 2.0
    steps = net.step_figures(df, "tls-wan")
    blsigs = steps[(steps["party"] == "verifier") & (steps["step"] == "get_blsigs")].iloc[0]
    assert blsigs["bytes"] == 3000 + 1000 and blsigs["waited"] == pytest.approx(0.75)
    # A section without steps of its own is drawn whole; every step belongs to a section.
    whole = steps[(steps["party"] == "driver") & (steps["section"] == "preprocessing")]
    assert list(whole["step"]) == ["preprocessing"]
    assert set(steps["section"]) == set(net.SECTIONS)


def test_latency_per_profile_beside_the_collaborative_prover(paper_dir: Path, tmp_path: Path) -> None:
    df, _ = frame(paper_dir, tmp_path)
    collab = collab_json(tmp_path / "collab", _collab_run(), None)
    from analysis.experiments.collab_groth16.parser import report_rows

    rows, _ = report_rows(collab, "collab", {"statement": "sm", "circuit": "zokrates", "n": 16})
    both = to_frame([*df.to_dict("records"), *rows])
    table = net.latency_table(both, beside_dbsm(both, 2.0))
    assert list(table.columns)[:2] == ["one process [s]", "none [s]"]
    where = "n=100, m=2, t=1, bn254, fast, 128"
    assert table.loc[f"DB-SM query ({where})", "wan [s]"].median == pytest.approx(2.1)
    assert table.loc[f"DB-RSM network floor, hops x RTT ({where})", "wan [s]"].median == pytest.approx(0.7)
    per_entry = table.loc[f"DB-SM query per entry ({where})", "wan [s]"].median
    assert per_entry == pytest.approx(2.1 / 100)
    local = table.loc[f"DB-SM query ({where})", "one process [s]"].median
    assert local > 0 and not math.isnan(local)
    proof = next(i for i in table.index if i.startswith("collab-groth16 SM proof"))
    assert table.loc[proof, "wan [s]"].median > 0
    # Without a tls run there is no table; without the study beside, db-sm-rsm's rows alone.
    assert net.latency_table(net.local_only(both), beside_dbsm(both, 2.0)).empty
    alone = net.latency_table(both)
    assert not any(i.startswith("collab-groth16") for i in alone.index)
    assert list(alone.index) == [i for i in table.index if not i.startswith("collab-groth16")]


def _collab_run() -> Any:
    from analysis import runs as plan_runs

    params = {"statement": "sm", "circuit": "zokrates", "n": 16, "threads": 1}
    extra = {"parties": [2], "variants": ["semi-honest"], "network": "wan"}
    return plan_runs.Run("collab-groth16", "sm-zokrates-n16-t1", params, 1, extra)


def test_posted_bytes_against_the_size_lines(paper_dir: Path, tmp_path: Path) -> None:
    df, _ = frame(paper_dir, tmp_path)
    posted = net.published_bytes(df, "tls-wan")
    assert posted.loc["sender-uploaded input ciphertexts", "posted / size"] == pytest.approx(1.01, abs=1e-3)
    # The verifier's get_verfsigs step posted 1000 bytes.
    assert posted.loc["verifier-uploaded BB signatures", "posted [MB]"] == pytest.approx(1000 / 1e6)


def render(df: Any, parsed: Parsed, out: Path) -> tuple[str, Context]:
    col = Collection(df, parsed.runs, [], {"db-sm-rsm": ["ours"]}, [])
    ctx = Context(col, RunConfig(), out)
    doc = Doc(out / "r.pdf", "test")
    doc.part = "appendix"
    dbsm.section(doc, ctx)
    from pypdf import PdfReader

    return " ".join(p.extract_text() or "" for p in PdfReader(str(doc.build())).pages), ctx


def test_the_section_draws_the_tls_runs(paper_dir: Path, tmp_path: Path) -> None:
    df, parsed = frame(paper_dir, tmp_path / "runs")
    text, ctx = render(df, parsed, tmp_path / "out")
    assert "Over the network" in text and "DB-SM query" in text
    names = {p.name for p in ctx.written}
    for name in ("dbsm_latency.png", "dbsm_timeline.png", "dbsm_cpu_wall.png", "dbsm_steps_1.csv",
                 "dbsm_steps_2.csv", "dbsm_posted_1.csv"):  # fmt: skip
        assert name in names, name
    # Figure 10 is drawn from the one-process run alone.
    top = (tmp_path / "out" / "tables" / "figure10_top.csv").read_text()
    assert top.count("ours m=2 n=100") == 1


def test_without_tls_runs_the_section_says_so_in_one_line(paper_dir: Path, tmp_path: Path) -> None:
    df, parsed = frame(paper_dir, tmp_path / "runs", profiles=())
    text, ctx = render(df, parsed, tmp_path / "out")
    assert " ".join(NO_TLS.split()) in " ".join(text.split())
    assert not any(p.name.startswith("dbsm_latency") for p in ctx.written)


def test_figure10_and_the_claims_group_only_the_one_process_runs(paper_dir: Path, tmp_path: Path) -> None:
    """A tls run of the same n, m and settings is not another repetition of the local run."""
    from analysis.experiments.db_sm_rsm.figure10 import db_groups

    df, _ = frame(paper_dir, tmp_path)
    ours = [g for g in db_groups(df) if g.source == "ours"]
    assert [list(g.runs) for g in ours] == [["local"]]
