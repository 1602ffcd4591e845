"""Running a program of the paper's own code (built by analysis/plan/upstream_build.py) as the
suite runs its own: a child process whose standard output (the program's report) is kept in a
file and echoed to the terminal as progress, timed (wall, CPU, peak memory of the child), and
the suite's report envelope (measure/schema/envelope.schema.json) written around what the
experiment's driver found, atomically.

The paper's programs draw their own randomness and take no seed: every run's `seed` is null,
and `inputs_sha256` digests the program's report (which holds what it printed of its inputs),
so two runs differ as two unseeded runs do.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

FORMAT = "tmbench-report/1"
# Exit codes of the drivers, as every program of the suite has them.
PASSED, FAILED, BAD_INPUT = 0, 1, 2


@dataclass
class Measured:
    """What one child process did: its exit status, its standard output, and its resources."""

    returncode: int
    stdout: str
    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    load_start: list[float]
    load_end: list[float]
    started_unix: float
    stderr_tail: list[str] = field(default_factory=list)


def _pump(src: IO[str], sink: IO[str] | None, keep: list[str], prefix: str, echo: bool) -> None:
    for line in src:
        keep.append(line)
        if sink is not None:
            sink.write(line)
            sink.flush()
        if echo and line.strip():
            print(f"{prefix}{line.rstrip()}", file=sys.stderr, flush=True)


def run_measured(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], stdout_file: Path | None, progress: str
) -> Measured:
    """Run `argv`, its output kept (in `stdout_file` too, as it comes) and shown on the
    terminal line by line, prefixed by `progress`; its wall time, and the CPU time and peak
    memory of the children waited for (this is the only one)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_start = list(os.getloadavg())
    started, t0 = time.time(), time.monotonic()
    out_lines: list[str] = []
    err_lines: list[str] = []
    sink = stdout_file.open("w", encoding="utf-8") if stdout_file is not None else None
    try:
        proc = subprocess.Popen(
            [str(a) for a in argv],
            cwd=cwd,
            env={**os.environ, **env},
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=1,
        )
        assert proc.stdout is not None and proc.stderr is not None
        threads = [
            threading.Thread(target=_pump, args=(proc.stdout, sink, out_lines, progress, True)),
            threading.Thread(target=_pump, args=(proc.stderr, None, err_lines, progress, True)),
        ]
        for t in threads:
            t.start()
        returncode = proc.wait()
        for t in threads:
            t.join()
    finally:
        if sink is not None:
            sink.close()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Measured(
        returncode,
        "".join(out_lines),
        time.monotonic() - t0,
        cpu,
        after.ru_maxrss / 1024,
        load_start,
        list(os.getloadavg()),
        started,
        [x.rstrip() for x in err_lines[-5:]],
    )


def machine() -> dict[str, Any]:
    """The machine block, as measure::machine writes it (without the load)."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kib = 0.0
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                mem_kib = float(line.split()[1])
    except OSError:
        pass
    pretty = platform.system()
    try:
        for line in Path("/etc/os-release").read_text(encoding="utf-8").splitlines():
            if line.startswith("PRETTY_NAME="):
                pretty = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return {
        "hostname": socket.gethostname(),
        "cpu_model": model,
        "logical_cpus": max(1, cpus),
        "mem_total_gib": mem_kib / 2**20,
        "os": f"{pretty} (kernel {platform.release()})",
    }


def provenance() -> dict[str, Any]:
    """{commit, dirty}: from the workflow's environment (SUITE_GIT_COMMIT, SUITE_GIT_DIRTY), else
    from git, else unknown."""
    commit = os.environ.get("SUITE_GIT_COMMIT")
    if commit:
        d = os.environ.get("SUITE_GIT_DIRTY")
        return {
            "commit": commit,
            "dirty": True if d in ("1", "true") else False if d in ("0", "false") else None,
        }
    repo = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return {"commit": "unknown", "dirty": None}
    return {"commit": head, "dirty": bool(status.strip())}


def runner() -> dict[str, Any]:
    v = os.environ.get
    return {
        "kind": v("SUITE_RUNNER") or "native",
        "image": v("SUITE_IMAGE") or None,
        "image_id": v("SUITE_IMAGE_ID") or None,
    }


def inputs_digest(items: Sequence[tuple[str, bytes]]) -> str:
    """The labelled digest of measure::envelope::Inputs: len(label) || label || len(bytes) ||
    bytes per item, lengths as 8 bytes big-endian."""
    h = hashlib.sha256()
    for label, data in items:
        lb = label.encode()
        h.update(len(lb).to_bytes(8, "big") + lb + len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def envelope(
    tool: str,
    tool_version: str,
    body_version: int,
    passed: bool,
    parameters: Mapping[str, Any],
    measured: Measured,
    body: Mapping[str, Any],
) -> dict[str, Any]:
    """The suite's report around `body`, for a run of a paper's program (no seed)."""
    return {
        "format": FORMAT,
        "tool": tool,
        "tool_version": tool_version,
        "body_version": body_version,
        "passed": bool(passed),
        "parameters": dict(parameters),
        "seed": None,
        "inputs_sha256": inputs_digest([("report", measured.stdout.encode())]),
        "machine": machine(),
        "provenance": provenance(),
        "runner": runner(),
        "load": {"start": measured.load_start, "end": measured.load_end},
        "resources": {
            "wall_s": measured.wall_s,
            "cpu_s": measured.cpu_s,
            "cpu_children_s": measured.cpu_s,
            "peak_rss_mib": measured.peak_rss_mib,
        },
        "started_unix": measured.started_unix,
        "body": dict(body),
    }


def write_atomically(path: Path, text: str) -> None:
    """Write through a temporary file beside `path`: no reader sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def write_report(path: Path, report: Mapping[str, Any]) -> None:
    write_atomically(path, json.dumps(report, indent=2, sort_keys=True) + "\n")


def read_build(stamp: Path) -> dict[str, Any]:
    """A part's build record (its built.json); a missing or malformed one is a ValueError naming
    it and how to build it."""
    try:
        data = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(
            f"{stamp}: no build record ({e}); build it with "
            "python3 -m analysis.plan.upstream_build build PART"
        ) from None
    if not isinstance(data, dict) or "key" not in data:
        raise ValueError(f"{stamp}: not a build record of analysis/plan/upstream_build.py")
    return data
