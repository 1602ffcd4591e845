"""Parsers for the db-sm-rsm report: the paper-format text (ours and the paper's, read by
analysis/parse/timer_report.py, whose grammar it is) and our JSON.

Our JSON report also says how the parties talked: `local` (one process) or `tls` (a process per
party, every message a post on a bulletin board, on netem's network profile `none`, `lan`,
`region`, `wan` or a custom one). The tidy rows carry it in the `variant` column (`local`,
`tls/none`, `tls/wan`, ...); a `tls` run adds rows: under `network steps > <path>`, each
process's (party's) wall time, CPU time, start and traffic per step; under `network`, each
process's totals (label `run`), each section's run-wide wall time with its chain of posts (hops)
and network floor (label = the section), the delay line's figures, and the profile's round trip
(label = profile, metric `rtt`, as collab-groth16's rows have it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.errors import ReportError
from analysis.parse.common import (
    Parsed,
    RunInfo,
    benchmark_rows,
    load_enveloped,
    need,
    no_report,
    published,
    report_base,
    report_problems,
    row,
)
from analysis.parse.timer_report import (
    PAPER_MACHINE,
    DbReport,
    Timer,
    failed_checks,
    parse_db_text,
    report_rows,
)

TOOL = "db-sm-rsm"


def parse_db_json(path: str | Path) -> DbReport:
    """Parse our db-sm-rsm report.json: the suite's envelope around the body of
    db-sm-rsm/docs/report.schema.json."""
    p = Path(path)
    env = load_enveloped(p, TOOL)
    params, d = env.parameters, env.body
    rep = DbReport(
        path=str(p),
        source="ours",
        n=need(params, "n", int, p, "parameters."),
        m=need(params, "m", int, p, "parameters."),
        curve=params.get("curve"),
        mode=params.get("mode"),
        threads=params.get("threads"),
        seed=env.seed,
        security=None if params.get("security") is None else str(params.get("security")),
        commit=env.commit,
        passed=env.passed,
        transport=str(d.get("transport") or params.get("transport") or "local"),
    )
    for i, t in enumerate(need(d, "timers", list, p, "body.")):
        where = f"body.timers[{i}]."
        if not isinstance(t, dict):
            raise ReportError(p, None, f"body.timers[{i}] to be an object")
        tpath = need(t, "path", list, p, where)
        seconds = need(t, "seconds", (int, float), p, where)
        cpu = t.get("cpu_seconds")
        cpu = float(cpu) if isinstance(cpu, int | float) and not isinstance(cpu, bool) else None
        label = need(t, "label", str, p, where)
        rep.timers.append(Timer(tuple(str(x) for x in tpath), t.get("party"), label, float(seconds), cpu))
    for k, v in need(d, "statuses", dict, p, "body.").items():
        if not isinstance(v, bool):
            raise ReportError(p, None, f"body.statuses.{k} to be true or false", repr(v))
        rep.statuses[k] = v
    for k, v in need(d, "sizes", dict, p, "body.").items():
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise ReportError(p, None, f"body.sizes.{k!r} to be a number (MB)", repr(v))
        rep.sizes[k] = float(v)
    for k, v in (d.get("sizes_sent") or {}).items():
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise ReportError(p, None, f"body.sizes_sent.{k!r} to be a number (MB)", repr(v))
        rep.sizes_sent[k] = float(v)
    rep.fixes = [str(x) for x in d.get("fixes", [])]
    keys = d.get("keys")
    if isinstance(keys, dict) and keys.get("source") is not None:
        rep.keys = str(keys["source"])
    network = d.get("network")
    if network is not None:
        rep.network = need(d, "network", dict, p, "body.")
    if d.get("audit") is not None:
        rep.audit = need(d, "audit", dict, p, "body.")
    failure = d.get("failure")
    if isinstance(failure, dict):
        rep.failure = f"{failure.get('party')} at {failure.get('step')}: {failure.get('error')}"
    rep.machine = env.machine
    rep.versions = {TOOL: str(env.envelope.get("tool_version"))}
    rep.resources = own_resources(env.envelope)
    return rep


# The envelope's resources as tidy rows (section "run", label "resources"): metric, key, unit.
RESOURCE_FIGURES = (("wall", "wall_s", "s"), ("cpu", "cpu_s", "s"), ("peak_rss", "peak_rss_mib", "MiB"))


def own_resources(envelope: dict[str, Any]) -> dict[str, float] | None:
    """The program's own wall and CPU seconds and peak RSS (MiB) from its envelope, by metric
    name; None without a resources block."""
    res = envelope.get("resources")
    if not isinstance(res, dict):
        return None
    out = {}
    for metric, key, _unit in RESOURCE_FIGURES:
        v = res.get(key)
        if isinstance(v, int | float) and not isinstance(v, bool) and v == v:
            out[metric] = float(v)
    return out


def resource_rows(base: dict[str, Any], rep: DbReport) -> list[dict[str, Any]]:
    """The program's own wall, CPU and peak memory as tidy rows (ours only; the paper's reports
    have none)."""
    units = {metric: unit for metric, _key, unit in RESOURCE_FIGURES}
    return [
        row(base, section="run", party=None, label="resources", metric=metric, value=v, unit=units[metric])
        for metric, v in (rep.resources or {}).items()
    ]


# ---- tidy rows ---------------------------------------------------------------------------------

EXPERIMENT = "db-sm-rsm"
PAPER_FILE = "report-db-sm-rsm-n10000-m4"


def transport_of(rep: DbReport) -> str | None:
    """How the run's parties talked, as the `variant` column says it: `local`, `tls/<profile>`, or
    `tls/nodes` for parties placed by SLURM on nodes of their own (the report lists their hosts)
    (None for a report that does not say: the paper's, or our text report alone)."""
    if rep.transport is None:
        return None
    if rep.transport != "tls":
        return rep.transport
    if (rep.network or {}).get("hosts"):
        return "tls/nodes"
    profile = (rep.network or {}).get("profile")
    return f"tls/{profile if isinstance(profile, str) else 'none'}"


# Figures of the network block: (metric, key, unit). Per process and step (each row of
# body.network.parties, its `net` object beside), per process in all (body.network.summary), per
# section (body.network.sections) and of the delay line.
STEP_FIGURES = (("start", "start_s", "s"), ("wall", "wall_s", "s"), ("cpu", "cpu_s", "s"))
NET_FIGURES = (
    ("bytes_sent", "bytes_sent", "bytes"), ("bytes_received", "bytes_received", "bytes"),
    ("posts", "posts", "count"), ("reads", "reads", "count"), ("rounds", "rounds", "count"),
    ("waited", "waited_s", "s"), ("hops", "hops", "count"),
)  # fmt: skip
SECTION_FIGURES = (
    ("query_wall", "wall_s", "s"), ("hops", "hops", "count"), ("network_floor", "network_floor_s", "s"),
)  # fmt: skip
DELAY_FIGURES = (
    ("delay_line_cpu", "cpu_s", "s"), ("delay_line_packets", "packets", "count"),
    ("delay_line_late_mean", "late_mean_s", "s"),
)  # fmt: skip
Figures = tuple[tuple[str, str, str], ...]
# The section of the per-process, per-step rows: `network steps > main > mixing`.
STEPS = "network steps"
# The section of the audit's rows (a tls run's record re-checked by verify-board).
AUDIT = "audit"
AUDIT_FIGURES = (
    ("cpu", "cpu_s", "s"), ("wall", "wall_s", "s"), ("checks_recomputed", "checks_recomputed", "count"),
)  # fmt: skip


def _figures(base: dict[str, Any], obj: Any, figures: Figures, p: Path, where: str) -> list[dict[str, Any]]:
    """One row per figure of `obj` (a JSON object, each figure a number)."""
    if not isinstance(obj, dict):
        raise ReportError(p, None, f"{where.rstrip('.')} to be an object", repr(obj)[:80])
    return [
        row(base, metric=m, value=float(need(obj, k, (int, float), p, where)), unit=u) for m, k, u in figures
    ]


def network_rows(base: dict[str, Any], net: dict[str, Any], p: Path) -> list[dict[str, Any]]:
    """The rows of a `tls` run's network block (see the module's docstring)."""
    profile = str(need(net, "profile", str, p, "body.network."))
    rtt = net.get("rtt_s")
    at = dict(base, section="network", party=None)
    rows = [row(at, label=profile, metric="rtt", value=float(rtt) if isinstance(rtt, int | float) else 0.0,
                unit="s")]  # fmt: skip
    if net.get("delay_line") is not None:
        rows += _figures(dict(at, label="delay line"), net["delay_line"], DELAY_FIGURES, p,
                         "body.network.delay_line.")  # fmt: skip
    for i, r in enumerate(need(net, "parties", list, p, "body.network.")):
        where = f"body.network.parties[{i}]."
        path = [str(x) for x in need(r, "path", list, p, where)]
        step = dict(base, section=" > ".join([STEPS, *path]), party=str(need(r, "party", str, p, where)),
                    label=str(need(r, "label", str, p, where)))  # fmt: skip
        rows += _figures(step, r, STEP_FIGURES, p, where)
        rows += _figures(step, need(r, "net", dict, p, where), NET_FIGURES, p, where + "net.")
    for i, r in enumerate(need(net, "summary", list, p, "body.network.")):
        where = f"body.network.summary[{i}]."
        whole = dict(base, section="network", party=str(need(r, "party", str, p, where)), label="run")
        rows += _figures(whole, r, STEP_FIGURES[1:], p, where)
        rows += _figures(whole, need(r, "net", dict, p, where), NET_FIGURES, p, where + "net.")
    for i, r in enumerate(need(net, "sections", list, p, "body.network.")):
        where = f"body.network.sections[{i}]."
        rows += _figures(dict(at, label=str(need(r, "section", str, p, where))), r, SECTION_FIGURES, p, where)
    return rows


def db_rows(rep: DbReport, run: str, run_dir: Path | None = None, experiment: str = EXPERIMENT,
            timer_metric: str = "time") -> Parsed:  # fmt: skip
    """The tidy rows of a report: each timer's seconds as `timer_metric` (`time`: wall clock;
    `cpu` for a text report timed on the CPU clock), and its CPU seconds (metric `cpu`) where
    our JSON report has them."""
    failed = failed_checks(rep)
    base = report_base(experiment, rep, run, PAPER_MACHINE, n=rep.n, m=rep.m, curve=rep.curve, mode=rep.mode,
                       security=rep.security, run_ok=not failed, variant=transport_of(rep))  # fmt: skip
    rows = report_rows(base, rep, timer_metric)
    if rep.audit is not None:
        at = dict(base, section=AUDIT, party="auditor", label="verify-board")
        rows += _figures(at, rep.audit, AUDIT_FIGURES, Path(rep.path), "body.audit.")
        passed = 1.0 if rep.audit.get("passed") else 0.0
        rows.append(row(at, metric="audit_passed", value=passed, unit="bool"))
    if rep.network is not None:
        rows += network_rows(base, rep.network, Path(rep.path))
    rows += resource_rows(base, rep)
    if run_dir is not None:
        rows += benchmark_rows(base, run_dir)
    info = RunInfo(experiment, rep.source, run, rep.path, not failed, rep.threads, rep.machine,
                   rep.versions, rep.fixes, failed, rep.commit)  # fmt: skip
    if rep.keys is not None:
        info.settings["keys"] = rep.keys
    if rep.transport is not None:
        info.settings["transport"] = transport_of(rep) or rep.transport
    return Parsed(rows, [info], [])


def load_run(run_dir: Path, run_id: str, params: dict[str, Any]) -> Parsed:
    """One of our runs: report.json (preferred) and report.txt, checked against each other."""
    js, txt = run_dir / "report.json", run_dir / "report.txt"
    if js.exists():
        rep = parse_db_json(js)
        parsed = db_rows(rep, run_id, run_dir)
        if txt.exists():
            # The text report is the paper-format record of the same run: a truncated or
            # malformed one is flagged, never silently dropped.
            try:
                parse_db_text(txt)
            except ReportError as e:
                parsed.runs[0].ok = False
                parsed.runs[0].problems.append(f"report.txt unreadable: {e}")
                for r in parsed.rows:
                    r["run_ok"] = False
        return parsed
    if txt.exists():
        rep = parse_db_text(txt)
        rep.curve, rep.mode = params.get("curve"), params.get("mode")
        rep.security, rep.threads = params.get("security"), params.get("threads")
        return db_rows(rep, run_id, run_dir)
    return no_report(EXPERIMENT, run_id)


def load_reference(paper_dir: Path) -> Parsed:
    """The paper's sample report (n = 10000, m = 4, PBC on BN254, one core)."""
    rep = parse_db_text(published(paper_dir / PAPER_FILE), source="paper")
    rep.curve, rep.mode, rep.security, rep.threads = "bn254-pbc", "paper", "paper", 1
    return db_rows(rep, PAPER_FILE)


def problems(run_dir: Path) -> list[str]:
    """Why this run does not count as verified (empty if its report passed and its text record is
    readable)."""

    def failed(js: Path) -> list[str]:
        rep = parse_db_json(js)
        found = [f"{k} is False" if rep.statuses.get(k) is False else k for k in failed_checks(rep)]
        # The text report is the paper-format record of the same run: as in the report, a
        # malformed one means the run does not count.
        txt = run_dir / "report.txt"
        if txt.exists():
            try:
                parse_db_text(txt)
            except ReportError as e:
                found.append(f"report.txt unreadable: {e}")
        return found

    return report_problems(run_dir, failed)
