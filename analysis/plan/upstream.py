"""Pinned upstream sources: the paper's own code, and the C, Python and Rust trees it is built
from, each a public repository at a fixed commit (`upstream/sources.yaml`).

Where the trees come from (the configuration):
  * `upstream_sources: DIR`: a directory of archives, one `git archive` export per tree named
    `<repository>-<commit>.tar.gz`, each checked against its pinned SHA-256 before anything else
    happens (a wrong one stops the workflow with one line naming the key and the digests);
  * else the repositories themselves, cloned at the pinned commits (checked with git) when this
    machine can reach them;
  * else nowhere: the experiments that need them plan no run, and the terminal and the PDF say
    how to add them.
Trees are unpacked (or cloned) once into the cache (`upstream_cache`, by default the user's
cache directory), `trees/<repository>-<commit8>/`, and each part built from them once per key
(`builds/<part>-<key16>/`): the key digests the trees' commits, our recipe (the build module,
`upstream_build.py`, and the part's patches and requirements) and the toolchain's version. A part's build
ends by writing `built.json` into its directory; the workflow's rule, the tests and any later
run reuse it.

The command line (`python3 -m analysis.plan.upstream_build`) is in the build module.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
PINS_DIR = REPO / "upstream"
PINS_FILE = PINS_DIR / "sources.yaml"
# The recipe's code (how parts are built): a change to it rebuilds every part.
RECIPE_CODE = (Path(__file__).with_name("upstream_build.py"),)
STAMP = "built.json"
TREE_STAMP = ".tmbench-tree.json"
# The configuration keys of this module (config/schema.yaml).
SOURCES_KEY = "upstream_sources"
CACHE_KEY = "upstream_cache"
# How long a probe of the network may take before the repositories count as unreachable.
PROBE_TIMEOUT_S = 15.0
# The environment's say: the cache (where no configuration names one), and "no network probe,
# count the repositories as unreachable" (for machines whose name lookups hang, and for tests).
CACHE_ENV = "TMBENCH_UPSTREAM_CACHE"
OFFLINE_ENV = "TMBENCH_UPSTREAM_OFFLINE"


class UpstreamError(RuntimeError):
    """A source that cannot be had or is not the pinned one; the message is one line."""


def say(text: str) -> None:
    print(f"[upstream] {text}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Tree:
    """One pinned source tree: a repository at a commit, and its archive's digest."""

    name: str
    url: str
    commit: str
    sha256: str
    what: str
    branch: str | None = None

    @property
    def repository(self) -> str:
        return self.url.rstrip("/").rsplit("/", 1)[-1]

    @property
    def archive(self) -> str:
        """The archive's file name in an `upstream_sources` directory."""
        return f"{self.repository}-{self.commit}.tar.gz"

    @property
    def folder(self) -> str:
        """The one folder the archive unpacks into, and the tree's folder in the cache."""
        return f"{self.repository}-{self.commit[:8]}"


@dataclass(frozen=True)
class Part:
    """Something built from trees: its kind (`python` or `cargo`), the trees, and the kind's
    settings as the pins file gives them."""

    name: str
    what: str
    kind: str
    trees: tuple[str, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)

    def recipe_files(self) -> list[Path]:
        """Our files that decide how it is built: the recipe's code, its patches and requirements."""
        files = list(RECIPE_CODE) + [PINS_DIR / "patches" / p for p in self.settings.get("patches", [])]
        if self.settings.get("requirements"):
            files.append(PINS_DIR / str(self.settings["requirements"]))
        return files


@dataclass(frozen=True)
class Pins:
    trees: dict[str, Tree]
    parts: dict[str, Part]

    def part(self, name: str) -> Part:
        if name not in self.parts:
            raise UpstreamError(f"unknown upstream part {name!r}; known: {', '.join(sorted(self.parts))}")
        return self.parts[name]

    def trees_of(self, parts: Sequence[str]) -> list[Tree]:
        names = sorted({t for p in parts for t in self.part(p).trees})
        return [self.trees[t] for t in names]


@cache
def pins(path: Path = PINS_FILE) -> Pins:
    """The pins file, checked: every part names known trees, every digest is 64 hex digits."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    trees = {}
    for name, t in data["trees"].items():
        tree = Tree(
            name, str(t["url"]), str(t["commit"]), str(t["sha256"]), str(t.get("what", "")), t.get("branch")
        )
        if len(tree.commit) != 40 or len(tree.sha256) != 64:
            raise ValueError(f"{path}: tree {name}: a commit of 40 and a sha256 of 64 hex digits")
        trees[name] = tree
    parts = {}
    for name, p in data["parts"].items():
        settings = {k: v for k, v in p.items() if k not in ("what", "kind", "trees")}
        part = Part(
            name, " ".join(str(p.get("what", "")).split()), str(p["kind"]), tuple(p["trees"]), settings
        )
        unknown = [t for t in part.trees if t not in trees]
        if unknown or part.kind not in ("python", "cargo"):
            raise ValueError(f"{path}: part {name}: unknown trees {unknown} or kind {part.kind!r}")
        parts[name] = part
    return Pins(trees, parts)


# ---- the archives of `upstream_sources` --------------------------------------------------------


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@cache
def _digest(path: Path, size: int, mtime_ns: int) -> str:
    return sha256_file(path)


def archive_digest(path: Path) -> str:
    """An archive's SHA-256 (computed once per file version in a process)."""
    st = path.stat()
    return _digest(path, st.st_size, st.st_mtime_ns)


def archive_problems(directory: Path, trees: Sequence[Tree]) -> list[str]:
    """One line per archive of `trees` that is missing from `directory` or is not the pinned
    one, each naming the configuration key to set."""
    key = f"config key '{SOURCES_KEY}'"
    if not directory.is_dir():
        return [
            f"{key}: {directory} is not a directory (it should hold the archives upstream/sources.yaml pins)"
        ]
    out = []
    for t in trees:
        path = directory / t.archive
        if not path.is_file():
            out.append(
                f"{key}: {directory} has no {t.archive} ({t.name} at commit {t.commit}, SHA-256 {t.sha256})"
            )
            continue
        got = archive_digest(path)
        if got != t.sha256:
            out.append(
                f"{key}: {path} has SHA-256 {got}, not the pinned {t.sha256}; point {SOURCES_KEY} at the "
                "archives upstream/sources.yaml pins (or leave it unset to clone the repositories)"
            )
    return out


# ---- the cache ---------------------------------------------------------------------------------


def cache_root(cfg: Mapping[str, Any] | None = None) -> Path:
    """The cache of trees and builds: `upstream_cache`, else $TMBENCH_UPSTREAM_CACHE, else
    $XDG_CACHE_HOME/tmbench/upstream (~/.cache/tmbench/upstream): outside any checkout, shared
    by every clone, test and run."""
    configured = (cfg or {}).get(CACHE_KEY) or os.environ.get(CACHE_ENV)
    if configured:
        p = Path(str(configured)).expanduser()
        return p if p.is_absolute() else (REPO / p)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tmbench" / "upstream"


def sources_dir(cfg: Mapping[str, Any] | None) -> Path | None:
    configured = (cfg or {}).get(SOURCES_KEY)
    if not configured:
        return None
    p = Path(str(configured)).expanduser()
    return p if p.is_absolute() else (REPO / p).resolve()


def tree_dir(root: Path, tree: Tree) -> Path:
    return root / "trees" / tree.folder


def _tree_ready(root: Path, tree: Tree) -> bool:
    stamp = tree_dir(root, tree) / TREE_STAMP
    try:
        return json.loads(stamp.read_text(encoding="utf-8")).get("commit") == tree.commit
    except (OSError, ValueError):
        return False


# The Python of the artifact's virtual environment: the system's (Debian's), as the artifact's own
# image takes its distribution's, and as the suite's container images have it, so that the same
# build runs in them; the Python running this where there is none.
SYSTEM_PYTHON = Path("/usr/bin/python3")


def interpreter() -> Path:
    return SYSTEM_PYTHON if SYSTEM_PYTHON.is_file() else Path(sys.executable)


@cache
def _toolchain(kind: str) -> str:
    """The version of the toolchain a part of this kind is built with (part of its key)."""
    argv = (
        [str(interpreter()), "-c", "import sys; print(sys.version.split()[0])"]
        if kind == "python"
        else ["rustc", "-V"]
    )
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return f"{argv[0]} unknown"
    return f"{argv[0]} {out.strip()}"


def part_key(part: Part, p: Pins | None = None) -> str:
    """The digest a part's build is keyed by: its trees' commits, our recipe files, the toolchain."""
    p = p or pins()
    doc = {
        "part": part.name,
        "trees": {t: p.trees[t].commit for t in part.trees},
        "recipe": {f.name: sha256_file(f) for f in part.recipe_files()},
        "pins": {k: v for k, v in sorted(part.settings.items())},
        "toolchain": _toolchain(part.kind),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


def build_dir(root: Path, part: Part) -> Path:
    return root / "builds" / f"{part.name}-{part_key(part)[:16]}"


def stamp_path(root: Path, part: Part) -> Path:
    return build_dir(root, part) / STAMP


def read_stamp(root: Path, part: Part) -> dict[str, Any] | None:
    """A finished build's record (None if the part is not built with the current key)."""
    try:
        data = json.loads(stamp_path(root, part).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("key") == part_key(part) else None


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock (a file beside `path`): two builds of one thing never run at once, in one
    workflow or across the tests and a workflow."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.with_name(path.name + ".lock").open("w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


# ---- where the trees come from -----------------------------------------------------------------


@cache
def reachable(url: str) -> bool:
    """Whether git can reach a repository from here (within PROBE_TIMEOUT_S; never with
    $TMBENCH_UPSTREAM_OFFLINE set)."""
    if os.environ.get(OFFLINE_ENV):
        return False
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0")
    try:
        proc = subprocess.run(
            ["git", "ls-remote", "--exit-code", url, "HEAD"],
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def unavailable(cfg: Mapping[str, Any], parts: Sequence[str]) -> str | None:
    """Why the trees of `parts` cannot be had (None when they can): with `upstream_sources` they
    can (a wrong archive is a configuration problem, `problems`); else when the cache already
    holds them or their builds, or git reaches their repositories."""
    if not parts or sources_dir(cfg) is not None:
        return None
    p, root = pins(), cache_root(cfg)
    if all(read_stamp(root, p.part(x)) is not None for x in parts):
        return None
    missing = [t for t in p.trees_of(parts) if not _tree_ready(root, t)]
    if not missing or reachable(missing[0].url):
        return None
    host = missing[0].url.split("/")[2]
    return (
        f"git cannot reach {host} to clone the pinned repositories, and no '{SOURCES_KEY}' is set (a "
        f"directory of the pinned archives, upstream/sources.yaml); add it with --config {SOURCES_KEY}=DIR"
    )


def problems(cfg: Mapping[str, Any], parts: Sequence[str]) -> list[str]:
    """The configuration's problems with the sources of `parts`: the archives of
    `upstream_sources`, each checked against its pinned digest."""
    where = sources_dir(cfg)
    if where is None or not parts:
        return []
    return archive_problems(where, pins().trees_of(parts))


def ensure_tree(root: Path, tree: Tree, sources: Path | None) -> Path:
    """The tree, unpacked from its checked archive or cloned at its checked commit, in the cache."""
    dest = tree_dir(root, tree)
    if _tree_ready(root, tree):
        return dest
    with locked(dest):
        if _tree_ready(root, tree):
            return dest
        tmp = Path(tempfile.mkdtemp(prefix=f".{tree.folder}.", dir=dest.parent))
        try:
            how = _unpack(sources / tree.archive, tree, tmp) if sources is not None else _clone(tree, tmp)
            (tmp / TREE_STAMP).write_text(json.dumps({"commit": tree.commit, "verified": how}) + "\n")
            shutil.rmtree(dest, ignore_errors=True)
            tmp.rename(dest)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return dest


def _unpack(archive: Path, tree: Tree, into: Path) -> str:
    if not archive.is_file():
        raise UpstreamError(f"{SOURCES_KEY}: no {archive}")
    got = sha256_file(archive)
    if got != tree.sha256:
        raise UpstreamError(f"{SOURCES_KEY}: {archive} has SHA-256 {got}, not the pinned {tree.sha256}")
    say(f"unpacking {archive.name} (SHA-256 checked)")
    with tarfile.open(archive, "r:gz") as tar:
        tar.extractall(into.parent / (into.name + ".x"), filter="data")
    top = into.parent / (into.name + ".x")
    try:
        inner = top / tree.folder
        if not inner.is_dir():
            raise UpstreamError(f"{archive} does not unpack into {tree.folder}/")
        for child in inner.iterdir():
            child.rename(into / child.name)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return f"archive {archive.name}, SHA-256 {got}"


def _clone(tree: Tree, into: Path) -> str:
    say(f"cloning {tree.url} at {tree.commit}")
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0")
    steps = [
        ["git", "clone", "--quiet", "--no-checkout", tree.url, str(into)],
        ["git", "-C", str(into), "checkout", "--quiet", "--detach", tree.commit],
    ]
    for argv in steps:
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        if proc.returncode != 0:
            raise UpstreamError(f"{' '.join(argv[:3])} failed: {proc.stderr.strip().splitlines()[-1:]}")
    head = subprocess.run(
        ["git", "-C", str(into), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if head != tree.commit:
        raise UpstreamError(f"{tree.url}: checked out {head}, not the pinned {tree.commit}")
    return f"git clone of {tree.url}, HEAD {head}"
