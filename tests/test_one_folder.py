"""One experiment, one folder: no shared file names an experiment, and the analysis has no import
cycle, between files or between packages (an experiment's folder is a package of its own)."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

from analysis import experiments, studies

REPO = Path(__file__).resolve().parents[1]

# The crates (the programs, which the experiments' folders describe) are not the harness.
CRATE_DIRS = {p.relative_to(REPO).parts[0] for p in REPO.glob("*/**/Cargo.toml") if "target" not in p.parts}
# Tests of particular experiments name them by design.
TEST_DIRS = ("analysis/tests/", "tests/")


def script(f: str) -> bool:
    """A file that runs as a program of its own: a `#!` line naming a shell or Python."""
    try:
        with (REPO / f).open("rb") as fh:
            first = fh.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and any(w in first for w in (b"sh", b"python"))


def shared_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True)
    out = []
    for f in listed.stdout.split():
        top = f.split("/")[0]
        if top in CRATE_DIRS or f.startswith(("experiments/", "studies/", *TEST_DIRS)):
            continue
        if f.endswith((".py", ".smk", ".sh")) or f == "Snakefile" or f.startswith("scripts/") or script(f):
            out.append(f)
    return out


def named_experiments(text: str) -> set[str]:
    """The experiments a text names, as a string or as an identifier (`db_sm_rsm`)."""
    found = set()
    for name in experiments.names():
        for form in {name, name.replace("-", "_")}:
            if re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", text):
                found.add(name)
    return found


def test_no_shared_file_names_an_experiment() -> None:
    files = shared_files()
    assert "analysis/cli.py" in files and "Snakefile" in files and "rules/common.smk" in files
    assert "scripts/test" in files and ".ci/run" in files
    bad = [f"{f}: {sorted(n)}" for f in files if (n := named_experiments((REPO / f).read_text()))]
    why = "shared files name experiments (move the code into the folder, or use a hook):\n"
    assert not bad, why + "\n".join(bad)


def test_the_name_check_finds_a_name() -> None:
    assert named_experiments("from analysis.experiments.db_sm_rsm import parser") == {"db-sm-rsm"}
    assert named_experiments('x = "cmix"') == {"cmix"}
    assert named_experiments("cmix-bench and dbsm") == set()


def module_files() -> dict[str, Path]:
    """Every module of the analysis (its tests left out), by its dotted name."""
    mods = {}
    for f in (REPO / "analysis").rglob("*.py"):
        rel = f.relative_to(REPO).with_suffix("")
        if "tests" in rel.parts:
            continue
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        mods[".".join(parts)] = f
    for f in (REPO / "experiments").glob("*/*.py"):
        mods[f"{experiments.package_name(f.parent.name)}.{f.stem}"] = f
    for f in (REPO / "studies").glob("*/*.py"):
        mods[f"{studies.package_name(f.parent.name)}.{f.stem}"] = f
    return mods


def imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the analysis modules it imports (at the top or inside a function)."""
    out: dict[str, set[str]] = {}
    for name, f in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in mods else node.module
                           for a in node.names]  # fmt: skip
            deps |= {t for t in targets if t in mods and t != name}
        out[name] = deps
    return out


def package_of(module: str) -> str:
    """A module's package: analysis.<subpackage>, an experiment's folder, or a top module."""
    parts = module.split(".")
    if parts[:2] in (["analysis", "experiments"], ["analysis", "studies"]) and len(parts) > 3:
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph (its nodes in order), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m) :], m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_no_import_cycle_between_files_or_packages() -> None:
    mods = module_files()
    graph = imports(mods)
    assert "analysis.experiments.db_sm_rsm.descriptor" in graph and graph["analysis.cli"]
    found = cycle(graph)
    assert found is None, "import cycle between files: " + " -> ".join(found or [])
    packages: dict[str, set[str]] = {}
    for m, deps in graph.items():
        packages.setdefault(package_of(m), set()).update(
            package_of(d) for d in deps if package_of(d) != package_of(m)
        )
    found = cycle(packages)
    assert found is None, "import cycle between packages: " + " -> ".join(found or [])


def test_the_cycle_check_finds_one() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None


def test_an_experiments_folder_crate_and_binaries_agree() -> None:
    """An experiment's program lives in a crate directory named like the experiment (or under a
    directory of that name, for an experiment of several programs), and its package and binary
    names begin with the experiment's first word: `experiments/mithril/`, `mithril/`,
    `mithril-bench`."""
    import tomllib

    bad = []
    for e in experiments.all_experiments():
        word = e.name.split("-")[0]
        for program in e.programs:
            crate = program.sources[0]
            if crate.split("/")[0] != e.name:
                bad.append(f"{e.name}: its program {program.name} is in {crate}/")
            package = tomllib.loads((REPO / crate / "Cargo.toml").read_text())["package"]["name"]
            if package != program.package:
                bad.append(f"{e.name}: {crate}/ holds package {package}, not {program.package}")
            for name in (program.package, program.name):
                if not name.startswith(word):
                    bad.append(f"{e.name}: {name} does not begin with {word}")
    assert not bad, "\n".join(bad)
