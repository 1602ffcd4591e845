"""How the parts of `upstream/sources.yaml` are built, once per key, into the cache
(analysis/plan/upstream.py says where and when).

A `python` part: the C library (PBC, autotools: its `setup` script, `configure`, `make`) in a
private prefix; a virtual environment with the pinned packages of its requirements file (PyPI,
`--require-hashes`); the Python package built on that library (charm) with our patches applied,
as a wheel installed without its dependencies (charm pins pyparsing < 2.4.1 and hypothesis,
which the artifact does not need); then a check that computes with it (a pairing's bilinearity,
gmpy2's modular powers).

A `cargo` part: the crate (the artifact's fork of cpsnarks-set) copied out of its tree, its
criterion bench compiled with cargo from the crate's own lock file, each git dependency taken
from its pinned tree through a `[patch."<git URL>"]` table (a cargo --config file), crates.io
reached as usual; `--cap-lints allow`, because path dependencies do not get cargo's lint cap and
ark-r1cs-std denies warnings a current rustc raises. Its rug builds the GMP it bundles (as the
authors built it); the record says so. Only the bench binary is kept.

Every step's wall and CPU time goes into the part's record, `built.json`, written last: a build
that stopped half-way is started again from scratch.

    python3 -m analysis.plan.upstream_build check --sources DIR      the archives, checked
    python3 -m analysis.plan.upstream_build build PART [--sources DIR] [--cache DIR]
    python3 -m analysis.plan.upstream_build where PART [--cache DIR] its build directory
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from analysis.plan.upstream import (
    PINS_DIR,
    STAMP,
    Part,
    UpstreamError,
    archive_problems,
    build_dir,
    cache_root,
    ensure_tree,
    interpreter,
    locked,
    part_key,
    pins,
    read_stamp,
    say,
)

# A computation with the built environment: charm's pairing on BN254 (the artifact's curve) must
# be bilinear, and not trivially so; gmpy2's modular power must agree with Python's.
PYTHON_CHECK = """
from charm.toolbox.pairinggroup import PairingGroup, ZR, G1, G2, pair
import gmpy2, pyparsing
g = PairingGroup('BN254')
a, b = g.random(ZR), g.random(ZR)
P, Q = g.random(G1), g.random(G2)
left, right = pair(P ** a, Q ** b), pair(P, Q) ** (a * b)
assert left == right, 'the pairing is not bilinear'
assert left != right * pair(P, Q), 'a wrong exponent passes'
assert int(gmpy2.powmod(3, 10**6 + 1, 2**127 - 1)) == pow(3, 10**6 + 1, 2**127 - 1)
print('pairing on BN254 bilinear; gmpy2', gmpy2.version(), '; pyparsing', pyparsing.__version__)
"""


class Steps:
    """The steps of one build, each run as a child process with its log, and timed."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.times: dict[str, dict[str, float]] = {}

    def run(
        self,
        step: str,
        argv: Sequence[str],
        cwd: Path,
        env: Mapping[str, str] | None = None,
        echo: bool = False,
    ) -> str:
        """Run one command; its output goes to the log as it comes (its standard error also to
        the terminal with `echo`: cargo's progress), and its standard output is returned; a
        failure is an UpstreamError naming the step and the log's last lines."""
        shown = " ".join(str(a).split("\n")[0] for a in argv[:3])
        say(f"{step}: {shown[:150]}{' ...' if len(argv) > 3 else ''}")
        before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
        out: list[str] = []
        tail: list[str] = []
        with self.log.open("a", encoding="utf-8") as log:
            log.write(f"\n==== {step}: {' '.join(map(str, argv))} (in {cwd})\n")
            log.flush()
            proc = subprocess.Popen(
                [str(a) for a in argv],
                cwd=cwd,
                env={**os.environ, **(env or {})},
                text=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            assert proc.stdout is not None and proc.stderr is not None
            pumps = [
                threading.Thread(target=_pump, args=(proc.stdout, log, out, None)),
                threading.Thread(target=_pump, args=(proc.stderr, log, tail, step if echo else None)),
            ]
            for p in pumps:
                p.start()
            returncode = proc.wait()
            for p in pumps:
                p.join()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        entry = self.times.setdefault(step, {"wall_s": 0.0, "cpu_s": 0.0})
        entry["wall_s"] += time.monotonic() - t0
        entry["cpu_s"] += cpu
        if returncode != 0:
            last = " / ".join(x.strip() for x in (tail or out)[-3:])
            raise UpstreamError(f"{step} failed (exit {returncode}; log {self.log}): {last}")
        return "".join(out)


def _pump(src: IO[str], log: IO[str], keep: list[str], echo: str | None) -> None:
    """Lines of a child's stream into the log (and `keep`), shown on the terminal under `echo`."""
    for line in src:
        keep.append(line)
        log.write(line)
        log.flush()
        if echo is not None and line.strip():
            say(f"{echo}: {line.strip()}")


def build(part: Part, root: Path, sources: Path | None) -> Path:
    """Build `part` into its directory of the cache unless it is built already; its record."""
    out = build_dir(root, part)
    if read_stamp(root, part) is not None:
        say(f"{part.name}: built already ({out})")
        return out / STAMP
    with locked(out):
        if read_stamp(root, part) is not None:
            return out / STAMP
        p = pins()
        trees = {t: ensure_tree(root, p.trees[t], sources) for t in part.trees}
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        steps = Steps(out / "build.log")
        t0 = time.monotonic()
        say(f"{part.name}: building into {out} (log {steps.log})")
        if part.kind == "python":
            record = _python(part, trees, out, steps)
        else:
            record = _cargo(part, trees, out, steps)
        record.update(
            part=part.name,
            key=part_key(part),
            what=part.what,
            trees={
                t: {"url": p.trees[t].url, "commit": p.trees[t].commit, "sha256": p.trees[t].sha256}
                for t in part.trees
            },
            sources=str(sources) if sources is not None else "cloned from the repositories",
            steps=steps.times,
            wall_s=time.monotonic() - t0,
            cpu_s=sum(s["cpu_s"] for s in steps.times.values()),
            built_unix=time.time(),
        )
        tmp = out / (STAMP + ".tmp")
        tmp.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(out / STAMP)
        say(f"{part.name}: built in {record['wall_s']:.0f} s ({record['cpu_s']:.0f} s CPU)")
    return out / STAMP


def _cores() -> str:
    return str(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def _python(part: Part, trees: Mapping[str, Path], out: Path, steps: Steps) -> dict[str, Any]:
    """The C library in `prefix/`, the virtual environment in `venv/`, the package in it."""
    s = part.settings
    prefix, venv, work = out / "prefix", out / "venv", out / "work"
    library = work / str(s["library"])
    shutil.copytree(trees[str(s["library"])], library, symlinks=True)
    steps.run("library: autotools", ["./setup"], library)
    steps.run("library: configure", ["./configure", f"--prefix={prefix}"], library)
    steps.run("library: make", ["make", f"-j{_cores()}"], library)
    steps.run("library: install", ["make", "install"], library)
    py = venv / "bin" / "python"
    python = interpreter()
    steps.run("venv: create", [python, "-m", "venv", venv], out)
    requirements = PINS_DIR / str(s["requirements"])
    steps.run(
        "venv: packages",
        [
            py,
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-deps",
            "--require-hashes",
            "-r",
            requirements,
        ],
        out,
    )
    package = work / str(s["package"])
    shutil.copytree(trees[str(s["package"])], package, symlinks=True)
    for patch in s.get("patches", []):
        steps.run(
            f"package: patch {patch}",
            ["patch", "-p1", "--forward", "-i", PINS_DIR / "patches" / patch],
            package,
        )
    lib = prefix / "lib"
    # charm's configure finds `python3-config` on PATH: the interpreter's own, first.
    path = {"PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    steps.run(
        "package: configure",
        [
            "./configure.sh",
            f"--python={py}",
            f"--extra-cflags=-I{prefix}/include",
            f"--extra-ldflags=-L{lib} -Wl,-rpath,{lib}",
        ],
        package,
        path,
    )
    env = {
        "CONFIG_FILE": str(package / "config.mk"),
        "LIBRARY_PATH": str(lib),
        "LD_LIBRARY_PATH": str(lib),
        **path,
    }
    steps.run(
        "package: wheel",
        [
            py,
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            ".",
        ],
        package,
        env,
    )
    checked = steps.run("check", [py, "-c", PYTHON_CHECK], out, {"LD_LIBRARY_PATH": str(lib)}).strip()
    freeze = steps.run("venv: freeze", [py, "-m", "pip", "freeze", "--all"], out).splitlines()
    shutil.rmtree(work)
    return {
        "python": str(py.relative_to(out)),
        "library_path": str(lib.relative_to(out)),
        "interpreter": steps.run("interpreter", [py, "-c", "import sys; print(sys.version)"], out).strip(),
        "packages": freeze,
        "check": checked.splitlines()[-1] if checked else "",
        "patches": list(s.get("patches", [])),
    }


def patch_table(part: Part, trees: Mapping[str, Path]) -> str:
    """The cargo configuration that takes each git dependency from its pinned tree."""
    p = pins()
    by_url: dict[str, list[str]] = {}
    for crate, where in sorted(part.settings["git_crates"].items()):
        tree = p.trees[str(where["tree"])]
        path = (trees[tree.name] / str(where["dir"])).resolve()
        by_url.setdefault(tree.url, []).append(f"{crate} = {{ path = {json.dumps(str(path))} }}")
    return "".join(f'[patch."{url}"]\n' + "\n".join(lines) + "\n\n" for url, lines in by_url.items())


def _cargo(part: Part, trees: Mapping[str, Path], out: Path, steps: Steps) -> dict[str, Any]:
    """The crate's bench binary in `bin/`, built in `target/` (removed afterwards)."""
    s = part.settings
    crate, bench = s["crate"], str(s["bench"])
    src = out / "src"
    shutil.copytree(trees[str(crate["tree"])] / str(crate["dir"]), src, symlinks=True)
    c_tests = bool(s.get("c_library_tests", True))
    if not c_tests:
        _skip_c_library_tests(src / "Cargo.toml")
    config = out / "cargo-patch.toml"
    config.write_text(patch_table(part, trees), encoding="utf-8")
    locked_before = _registry_versions(src / "Cargo.lock")
    # rug's gmp-mpfr-sys keeps the GMP and MPFR it builds in a cache of its own: ours, beside the
    # builds, so that a rebuild of the fork (a new key) reuses them and the record says whether.
    gmp_cache = out.parent.parent / "gmp-mpfr-sys"
    gmp_reused = gmp_cache.is_dir() and any(gmp_cache.iterdir())
    env = {"CARGO_TARGET_DIR": str(out / "target"), "RUSTFLAGS": "--cap-lints allow",
           "GMP_MPFR_SYS_CACHE": str(gmp_cache)}  # fmt: skip
    # --timings: cargo's report of what each crate took (rug's bundled GMP among them).
    argv = ["cargo", "bench", "--no-run", "--bench", bench, "--config", config, "--timings"]
    text = steps.run(
        "cargo: bench binary", [*argv, "--message-format", "json-render-diagnostics"], src, env, echo=True
    )
    exe = None
    for line in text.splitlines():
        if line.startswith("{"):
            msg = json.loads(line)
            if msg.get("reason") == "compiler-artifact" and msg.get("target", {}).get("name") == bench:
                exe = msg.get("executable") or exe
    if exe is None:
        raise UpstreamError(f"cargo built no executable for bench {bench} (log {steps.log})")
    (out / "bin").mkdir()
    shutil.copy2(exe, out / "bin" / bench)
    rustc = steps.run("rustc version", ["rustc", "-V"], out).strip()
    timings = unit_times(out / "target")
    shutil.rmtree(out / "target")
    return {
        "bench": str(Path("bin") / bench),
        "rustc": rustc,
        "rustflags": env["RUSTFLAGS"],
        "gmp": "bundled: rug's gmp-mpfr-sys builds the GMP and MPFR it ships, as the fork's lock file "
        "and the authors' build have it",
        "gmp_self_tests": "run (make check)" if c_tests else "not run (gmp-mpfr-sys feature c-no-tests)",
        "gmp_build": "reused from gmp-mpfr-sys's cache (an earlier build made it)"
        if gmp_reused
        else "made by this build",
        "crate_times": timings,
        # The fork's lock file, kept: no crates.io package at another version than it pins.
        "crates_io_versions_changed": sorted(
            f"{n} {v}" for n, v in _registry_versions(src / "Cargo.lock") ^ locked_before
        ),
    }


def _skip_c_library_tests(manifest: Path) -> None:
    """Turns on gmp-mpfr-sys's feature `c-no-tests` in the copy's manifest: the bundled GMP and
    MPFR are built as before, without running their own test suites. The version requirement
    accepts any 1.x, so the lock file's version stays."""
    text = manifest.read_text(encoding="utf-8")
    if "[dependencies.gmp-mpfr-sys]" in text or re.search(r"(?m)^gmp-mpfr-sys\s*=", text):
        raise UpstreamError(f"{manifest}: names gmp-mpfr-sys already; set c_library_tests: true")
    text += '\n[dependencies.gmp-mpfr-sys]\nversion = "1"\nfeatures = ["c-no-tests"]\n'
    manifest.write_text(text, encoding="utf-8")


def _registry_versions(lock: Path) -> set[tuple[str, str]]:
    """(name, version) of every crates.io package of a Cargo.lock."""
    data = tomllib.loads(lock.read_text(encoding="utf-8"))
    return {
        (p["name"], p["version"]) for p in data.get("package", []) if "crates.io" in str(p.get("source", ""))
    }


def unit_times(target: Path) -> dict[str, Any]:
    """What cargo's --timings report says each crate took (seconds, all its units: build script,
    its run, the library): the slowest five, and rug's GMP (gmp-mpfr-sys, which builds the GMP
    and MPFR it ships). Empty where the report cannot be read."""
    html = target / "cargo-timings" / "cargo-timing.html"
    m = (
        re.search(r"const UNIT_DATA = (\[.*?\]);", html.read_text(encoding="utf-8"), re.S)
        if html.is_file()
        else None
    )
    if m is None:
        return {}
    per: dict[str, float] = {}
    for u in json.loads(m.group(1)):
        key = f"{u.get('name')} {u.get('version')}"
        per[key] = per.get(key, 0.0) + float(u.get("duration", 0.0))
    slowest = sorted(per.items(), key=lambda kv: -kv[1])[:5]
    gmp = sum(v for k, v in per.items() if k.startswith("gmp-mpfr-sys "))
    return {"slowest_crates_s": dict(slowest), "bundled_gmp_s": gmp}


# ---- the command line --------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 -m analysis.plan.upstream_build",
        description="Build a part of upstream/sources.yaml once, into the cache.",
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="check the archives of a sources directory against the pins")
    c.add_argument("--sources", required=True, type=Path)
    for name, text in (
        ("build", "build a part once (reused when built)"),
        ("where", "a part's build directory"),
    ):
        b = sub.add_parser(name, help=text)
        b.add_argument("part")
        b.add_argument("--sources", type=Path, default=None, help="a directory of the pinned archives")
        b.add_argument("--cache", type=Path, default=None, help="the cache (default: the user's cache)")
    args = ap.parse_args(argv)
    p = pins()
    try:
        if args.cmd == "check":
            found = archive_problems(args.sources, list(p.trees.values()))
            for line in found:
                print(line, file=sys.stderr)
            if not found:
                print(f"{len(p.trees)} archives in {args.sources}: each has its pinned SHA-256")
            return 1 if found else 0
        root = args.cache if args.cache is not None else cache_root()
        part = p.part(args.part)
        if args.cmd == "where":
            print(build_dir(root, part))
            return 0
        stamp = build(part, root, args.sources)
        print(stamp)
        return 0
    except UpstreamError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
