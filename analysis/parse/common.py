"""What the parsers share: reading JSON with errors that point at the file and line, checked
field access, the machine block as text, Snakemake's benchmark files, and the pieces every
parser of a report.json uses (the row of a run's shared columns, its verdict, its problems)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from analysis.errors import ReportError


def json_line(p: Path, key: str) -> int | None:
    """Line of the first `"key"` in a JSON file, to point a semantic error at (None if absent)."""
    needle = f'"{key}"'
    try:
        for no, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1):
            if needle in line:
                return no
    except OSError:
        return None
    return None


def type_name(typ: type | tuple[type, ...]) -> str:
    names = {int: "an integer", float: "a number", str: "a string", dict: "an object", list: "a list"}
    ts = typ if isinstance(typ, tuple) else (typ,)
    return " or ".join(dict.fromkeys(names.get(t, t.__name__) for t in ts))


def need(obj: dict[str, Any], key: str, typ: type | tuple[type, ...], p: Path, where: str) -> Any:
    """obj[key] if it is of type typ; else a ReportError naming the file, line and key."""
    if key not in obj:
        raise ReportError(p, None, f"key {where}{key} (JSON)", "no such key")
    val = obj[key]
    if not isinstance(val, typ) or (isinstance(val, bool) and typ in (int, float, (int, float))):
        raise ReportError(p, json_line(p, key), f"{where}{key} to be {type_name(typ)}", repr(val)[:80])
    return val


def objects(obj: dict[str, Any], key: str, p: Path, where: str,
            at: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]:  # fmt: skip
    """The items of the list obj[key] (obj being at `where`), each an object, with where it is:
    `<at>key[i].` (`at` is `where` unless given); a missing list or an item that is not an object
    is a ReportError naming the file and the item."""
    at = where if at is None else at
    for i, item in enumerate(need(obj, key, list, p, where)):
        if not isinstance(item, dict):
            raise ReportError(p, None, f"{at}{key}[{i}] to be an object")
        yield f"{at}{key}[{i}].", item


def load_json(p: Path) -> dict[str, Any]:
    """A JSON object from a file; a truncated or malformed file names its line."""
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ReportError(p, None, f"a readable file ({e.strerror})") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(p, e.lineno, f"valid JSON ({e.msg})") from e
    if not isinstance(data, dict):
        raise ReportError(p, 1, "a JSON object at the top level")
    return data


ENVELOPE_FORMAT = "tmbench-report/1"


@dataclass
class Enveloped:
    """A program's report: the suite's one envelope (measure/schema/envelope.schema.json) around
    the experiment's body. Whether the run passed is read here and nowhere else."""

    path: Path
    envelope: dict[str, Any]
    body: dict[str, Any]

    @property
    def passed(self) -> bool:
        return self.envelope.get("passed") is True

    @property
    def machine(self) -> dict[str, Any] | None:
        m = self.envelope.get("machine")
        return m if isinstance(m, dict) else None

    @property
    def commit(self) -> str | None:
        return commit_of(self.envelope)

    @property
    def parameters(self) -> dict[str, Any]:
        prm = self.envelope.get("parameters")
        return prm if isinstance(prm, dict) else {}

    @property
    def seed(self) -> str | None:
        s = self.envelope.get("seed")
        return s if isinstance(s, str) else None

    @property
    def inputs_sha256(self) -> str | None:
        d = self.envelope.get("inputs_sha256")
        return d if isinstance(d, str) else None

    @property
    def runner(self) -> dict[str, Any]:
        r = self.envelope.get("runner")
        return r if isinstance(r, dict) else {"kind": "native", "image": None, "image_id": None}

    @property
    def load(self) -> dict[str, float | None]:
        """The one-minute load average at the run's start and end."""
        ld = self.envelope.get("load") or {}
        out: dict[str, float | None] = {}
        for k in ("start", "end"):
            v = ld.get(k)
            out[k] = num(v[0]) if isinstance(v, list) and v else None
        return out

    def tool_versions(self, name: str) -> dict[str, str]:
        """The versions block of a program that names only itself: `name` at the tool's version."""
        return {name: str(self.envelope.get("tool_version", "?"))}

    def base_row(self, experiment: str, run: str, *, versions: dict[str, str] | None = None,
                 **columns: Any) -> dict[str, Any]:  # fmt: skip
        """What every row of this run of ours shares: its machine, commit, versions and `columns`."""
        return base_row(experiment, "ours", run, self.path, machine=machine_text(self.machine),
                        commit=self.commit, versions=versions, **columns)  # fmt: skip

    def load_rows(self, base: dict[str, Any]) -> list[dict[str, Any]]:
        """The run's load at its start and end as rows on `base` (see `load_rows`)."""
        return load_rows(base, self.load)

    def settle(self, rows: list[dict[str, Any]], experiment: str, run: str, failed: list[str],
               threads: set[int], versions: dict[str, str]) -> RunInfo:  # fmt: skip
        """This run's verdict on its rows, and its RunInfo (see `settle`)."""
        return settle(rows, experiment, run, self.path, failed, threads, self.machine, versions, self.commit)


def runner_of(report: Path) -> dict[str, Any] | None:
    """The runner block of a report written through the envelope (None for other files)."""
    try:
        d = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    r = d.get("runner") if isinstance(d, dict) and d.get("format") == ENVELOPE_FORMAT else None
    return r if isinstance(r, dict) else None


def load_enveloped(p: Path, tool: str) -> Enveloped:
    """A report written through the suite's envelope by `tool`: the envelope's format, tool,
    passed and body checked, errors naming the file and line."""
    d = load_json(p)
    if d.get("format") != ENVELOPE_FORMAT:
        raise ReportError(p, json_line(p, "format"), f'"format": "{ENVELOPE_FORMAT}"', repr(d.get("format")))
    if d.get("tool") != tool:
        raise ReportError(p, json_line(p, "tool"), f'"tool": "{tool}"', repr(d.get("tool")))
    if not isinstance(d.get("passed"), bool):
        raise ReportError(p, json_line(p, "passed"), "passed to be true or false", repr(d.get("passed")))
    body = need(d, "body", dict, p, "")
    return Enveloped(p, d, body)


def num(v: Any) -> float | None:
    """A JSON number as a float; anything else (a bool too) None."""
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def numbers(
    obj: Any,
    p: Path,
    where: str,
    keys: tuple[str, ...],
    shape: str,
    value: str = "a number of seconds",
    clip: int | None = 80,
) -> dict[str, float]:
    """The numbers under `keys` of a block of a report (e.g. its median, min and max seconds): a
    block that is not an object (`shape` says what it should hold) or a value that is not a number
    is an error naming the file and the key; the value found is shown up to `clip` characters."""
    if not isinstance(obj, dict):
        raise ReportError(p, None, f"{where} to be an object with {shape}")
    out = {}
    for k in keys:
        v = num(obj.get(k))
        if v is None:
            raise ReportError(p, None, f"{where}.{k} to be {value}", repr(obj.get(k))[:clip])
        out[k] = v
    return out


def published(path: Path, what: str = "the paper's sample report (shipped in analysis/data/paper/)") -> Path:
    """A published figures' file we compare with; its absence is an error naming it."""
    if not path.exists():
        raise ReportError(path, None, what, "no such file")
    return path


def published_rows(path: Path, what: str, units: set[str]) -> Iterator[tuple[int, dict[str, str], float]]:
    """The rows of a published figures' CSV (columns value and unit, at least): line number, the
    row, and its value; a missing file, a value that is not a number or an unknown unit is an
    error naming the file and line."""
    p = published(path, what)
    with p.open(encoding="utf-8", newline="") as f:
        for no, r in enumerate(csv.DictReader(f), start=2):
            try:
                value = float(r["value"])
            except (KeyError, TypeError, ValueError):
                raise ReportError(p, no, "a number in column value", r.get("value")) from None
            if (r.get("unit") or "") not in units:
                raise ReportError(p, no, f"a unit of {', '.join(sorted(units))}", r.get("unit"))
            yield no, r, value


def machine_text(machine: dict[str, Any] | None) -> str:
    """One line for a run's machine block (empty without one)."""
    if not machine:
        return ""
    cpu = machine.get("cpu_model", "?")
    return (
        f"{machine.get('hostname', '?')}: {cpu}, {machine.get('logical_cpus', '?')} logical CPUs, "
        f"{machine.get('mem_total_gib', '?')} GiB, {machine.get('os', '?')}"
    )


def commit_of(report: dict[str, Any]) -> str | None:
    """The commit (with a '+dirty' mark) in a report's provenance block, if it has one."""
    prov = report.get("provenance")
    if not isinstance(prov, dict) or not prov.get("commit"):
        return None
    return str(prov["commit"])[:12] + ("+dirty" if prov.get("dirty") else "")


# Snakemake's benchmark file: a header line and one line per repetition of the job.
BENCHMARK_METRICS = {"s": ("wall", "s"), "cpu_time": ("cpu", "s"), "max_rss": ("peak_rss", "MiB")}


def parse_benchmark(p: Path) -> dict[str, float]:
    """Wall time, CPU time and peak RSS of a job, from the benchmark file Snakemake wrote."""
    try:
        with p.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as e:
        raise ReportError(p, None, f"a readable benchmark file ({e.strerror})") from e
    if not rows:
        raise ReportError(p, 2, "a line of measurements after the header", "end of file")
    out: dict[str, float] = {}
    for key, (metric, _unit) in BENCHMARK_METRICS.items():
        raw = rows[-1].get(key)
        if raw in (None, "", "NA", "-"):
            continue
        try:
            out[metric] = float(raw)
        except ValueError:
            raise ReportError(p, 1 + len(rows), f"a number in column {key}", raw) from None
    return out


# ---- what every experiment's parser hands to the tidy table --------------------------------

# The tidy table's columns: one row per measurement. Columns an experiment has no use for are
# empty (e.g. a parameter it does not have); `variant` names what one run compares side by side
# (a circuit, a scheme, a group, a protocol variant).
COLUMNS = [
    "experiment", "source", "run", "file", "variant", "statement", "prover", "n", "m", "curve",
    "hash", "mode", "security", "threads", "rep", "section", "party", "label", "metric", "value",
    "unit", "run_ok", "machine", "commit", "versions",
]  # fmt: skip


@dataclass
class RunInfo:
    """One run (or one prover of a run) as the report lists it, with its verification status."""

    experiment: str
    source: str
    run: str
    path: str
    ok: bool
    threads: int | None
    machine: dict[str, Any] | None = None
    versions: dict[str, str] = field(default_factory=dict)
    fixes: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # names of the failed statuses
    commit: str | None = None
    problems: list[str] = field(default_factory=list)  # e.g. a truncated text report
    settings: dict[str, str] = field(default_factory=dict)  # e.g. where its keys came from
    # Where it ran: {"kind": native|podman|docker, "image": name, "image_id": digest}.
    runner: dict[str, Any] | None = None


@dataclass
class Parsed:
    rows: list[dict[str, Any]] = field(default_factory=list)
    runs: list[RunInfo] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, other: Parsed) -> None:
        self.rows += other.rows
        self.runs += other.runs
        self.notes += other.notes


# The columns one run's rows share; the others (and `rep`, which the tidy table sets) differ by row.
RUN_COLUMNS = tuple(
    c for c in COLUMNS if c not in ("rep", "section", "party", "label", "metric", "value", "unit")
)


def base_row(
    experiment: str,
    source: str,
    run: str,
    file: str | Path,
    *,
    machine: str = "",
    commit: str | None = None,
    versions: dict[str, str] | None = None,
    **columns: Any,
) -> dict[str, Any]:
    """What every row of one run shares: the columns not given are None, run_ok is True and the
    versions are their JSON text."""
    b: dict[str, Any] = dict.fromkeys(RUN_COLUMNS)
    b.update(experiment=experiment, source=source, run=run, file=str(file), run_ok=True, machine=machine,
             commit=commit, versions=json.dumps(versions or {}, sort_keys=True))  # fmt: skip
    b.update(columns)
    return b


class Measured(Protocol):
    """A parsed report that is either ours or a paper's sample report (the text formats)."""

    path: str
    source: str
    threads: int | None
    machine: dict[str, Any] | None
    versions: dict[str, str]
    commit: str | None


def report_base(
    experiment: str, rep: Measured, run: str, paper_machine: str, **columns: Any
) -> dict[str, Any]:
    """What every row of one parsed report shares. A paper's sample report carries no machine
    block: its machine is the one its README states."""
    machine = paper_machine if rep.source == "paper" else machine_text(rep.machine)
    return base_row(experiment, rep.source, run, rep.path, machine=machine, commit=rep.commit,
                    versions=rep.versions, threads=rep.threads, **columns)  # fmt: skip


def row(base: dict[str, Any], **kw: Any) -> dict[str, Any]:
    r = dict(base)
    r.update(kw)
    return r


def benchmark_rows(base: dict[str, Any], run_dir: Path) -> list[dict[str, Any]]:
    """The job's wall time, CPU time and peak RSS as Snakemake measured them (if it did)."""
    p = run_dir / "benchmark.tsv"
    if not p.exists():
        return []
    return [
        row(base, section="job", party=None, label="job", metric=metric, value=value,
            unit="MiB" if metric == "peak_rss" else "s")
        for metric, value in parse_benchmark(p).items()
    ]  # fmt: skip


def load_rows(base: dict[str, Any], load: dict[str, float | None]) -> list[dict[str, Any]]:
    """The one-minute load average at the run's start and end (where the report has it)."""
    return [
        row(base, section="run", label="one-minute load average", metric=f"load_{key}", value=v, unit="load")
        for key, v in load.items()
        if v is not None
    ]


def settle(
    rows: list[dict[str, Any]],
    experiment: str,
    run: str,
    p: Path,
    failed: list[str],
    threads: set[int],
    machine: dict[str, Any] | None,
    versions: dict[str, str],
    commit: str | None,
) -> RunInfo:
    """A run of ours verified when nothing failed: its verdict on every row, and its RunInfo (at
    the smallest thread count it measured)."""
    ok = not failed
    for r in rows:
        r["run_ok"] = ok
    return RunInfo(experiment, "ours", run, str(p), ok, min(threads) if threads else None, machine, versions,
                   failed=failed, commit=commit)  # fmt: skip


def no_report(experiment: str, run_id: str) -> Parsed:
    """A run without a report: a note, no rows."""
    return Parsed(notes=[f"{experiment}/{run_id}: no report (the run did not finish)"])


ReportRows = tuple[list[dict[str, Any]], RunInfo | list[RunInfo]]


def report_run(experiment: str, run_dir: Path, run_id: str, read: Callable[[Path], ReportRows],
               **job: Any) -> Parsed:  # fmt: skip
    """A run's report.json read by `read`, with the job's benchmark figures on the columns of its
    first row but those in `job` (what the job as a whole does not have)."""
    js = run_dir / "report.json"
    if not js.exists():
        return no_report(experiment, run_id)
    rows, info = read(js)
    rows += benchmark_rows({**rows[0], **job}, run_dir) if rows else []
    return Parsed(rows, [info] if isinstance(info, RunInfo) else info, [])


def report_problems(run_dir: Path, read: Callable[[Path], list[str]], name: str = "report.json") -> list[str]:
    """Why a run does not count as verified, by `read` of its report (`name`); none is a problem."""
    js = run_dir / name
    if not js.exists():
        return [f"no {name}"]
    return read(js)
