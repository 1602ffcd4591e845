"""Every command the README shows, in its code blocks and its table cells, names things that
exist: a cargo package and its bench, bin or test target, a program built into target/release,
a subcommand of `python -m analysis`, a Snakemake rule, an executable script. A reader who copies
a line should never meet "no such target"."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from workspace import members

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

# Snakemake options that take one value (the next word); --config takes every KEY=VALUE after it.
SNAKEMAKE_VALUED = {"--cores", "-c", "--jobs", "-j", "--configfile", "--profile", "--report", "--forcerun",
                    "--directory", "-d", "--snakefile", "-s"}


def readme_commands(text: str) -> list[str]:
    """The command lines of the README: each line of its code blocks, and each code span of its
    table rows, with shell comments removed and split at `&&`, `;` and `|`."""
    lines: list[str] = []
    in_block = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        if in_block:
            lines.append(line)
        elif line.lstrip().startswith("|"):
            lines.extend(re.findall(r"`([^`]+)`", line))
    commands = []
    for line in lines:
        line = re.sub(r"(^|\s)#.*$", "", line)
        commands.extend(part.strip() for part in re.split(r"&&|;|\|", line) if part.strip())
    return commands


@dataclass
class Crate:
    """A workspace package and the targets cargo knows for it."""

    name: str
    bins: set[str] = field(default_factory=set)
    benches: set[str] = field(default_factory=set)
    tests: set[str] = field(default_factory=set)


def workspace() -> dict[str, Crate]:
    """The workspace's packages by name, each with its bin, bench and test targets: the ones its
    Cargo.toml declares and the ones cargo discovers (src/main.rs, src/bin/, benches/, tests/)."""
    crates = {}
    for d in members(REPO):
        manifest = tomllib.loads((d / "Cargo.toml").read_text(encoding="utf-8"))
        c = Crate(manifest["package"]["name"])
        c.bins = {b["name"] for b in manifest.get("bin", [])}
        c.benches = {b["name"] for b in manifest.get("bench", [])}
        c.tests = {t["name"] for t in manifest.get("test", [])}
        if (d / "src/main.rs").exists():
            c.bins.add(c.name)
        c.bins |= {p.stem for p in (d / "src/bin").glob("*.rs")}
        c.benches |= {p.stem for p in (d / "benches").glob("*.rs")}
        c.tests |= {p.stem for p in (d / "tests").glob("*.rs")}
        crates[c.name] = c
    return crates


def cargo_problem(command: str, crates: dict[str, Crate]) -> str | None:
    """Why `cargo bench|run|test -p X [--bench|--bin|--test Y]` would not find its target, or None."""
    words = shlex.split(command)
    words = words[words.index("cargo"):]
    package = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-p", "--package")), None)
    if package is None:
        return None  # the workspace as a whole
    if package not in crates:
        return f"no workspace package {package!r}"
    crate = crates[package]
    for option, known in (("--bench", crate.benches), ("--bin", crate.bins), ("--test", crate.tests)):
        for i, w in enumerate(words[:-1]):
            if w == option and words[i + 1] not in known:
                return f"{package} has no {option[2:]} target {words[i + 1]!r} (it has {sorted(known)})"
    return None


def snakemake_targets(command: str) -> list[str]:
    """The targets (rule names) a snakemake command line asks for."""
    words = shlex.split(command)
    words = words[words.index("snakemake") + 1:]
    targets = []
    i = 0
    in_config = False
    while i < len(words):
        w = words[i]
        if w in SNAKEMAKE_VALUED:
            i += 2
            in_config = False
            continue
        if w.startswith("-"):
            in_config = w == "--config"
        elif not (in_config or "=" in w):
            targets.append(w)
        i += 1
    return targets


def rules() -> set[str]:
    """Every rule the workflow's files define (the Snakefile and every .smk it may include)."""
    skip = {"target", "node_modules", "results", ".snakemake", ".git"}
    smk = [f for f in REPO.rglob("*.smk") if not skip & set(f.relative_to(REPO).parts)]
    files = [REPO / "Snakefile", *sorted(smk)]
    names: set[str] = set()
    for f in files:
        names |= set(re.findall(r"^rule (\w+):", f.read_text(encoding="utf-8"), flags=re.M))
    return names


def analysis_subcommands() -> set[str]:
    """The subcommands `python -m analysis --help` lists."""
    out = subprocess.run([sys.executable, "-m", "analysis", "--help"], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"\{([\w,-]+)\}", out)
    assert m, f"no subcommand list in the help:\n{out}"
    return set(m.group(1).split(","))


COMMANDS = readme_commands(README.read_text(encoding="utf-8"))
CARGO = [c for c in COMMANDS if re.search(r"\bcargo (bench|run|test)\b", c)]
PROGRAMS = sorted({m for c in COMMANDS for m in re.findall(r"(?<![\w/.-])target/release/([\w-]+)", c)})
ANALYSIS = sorted({m for c in COMMANDS for m in re.findall(r"\bpython3? -m analysis ([\w-]+)", c)})
SNAKEMAKE = [c for c in COMMANDS if re.search(r"(^|\s)snakemake(\s|$)", c)]
SCRIPTS = sorted({m for c in COMMANDS for m in re.findall(r"(?<![\w/.-])scripts/([\w.-]+)", c)})


def test_the_readme_shows_commands_of_every_kind() -> None:
    # Without this, a change to the extraction that finds nothing would pass every check below.
    # (The README shows no cargo command today: its programs are run from target/release.)
    assert PROGRAMS and ANALYSIS and SNAKEMAKE and SCRIPTS, (PROGRAMS, ANALYSIS, SNAKEMAKE, SCRIPTS)


@pytest.mark.parametrize("command", CARGO)
def test_cargo_targets_exist(command: str) -> None:
    assert cargo_problem(command, workspace()) is None, f"{command}: {cargo_problem(command, workspace())}"


@pytest.mark.parametrize("program", PROGRAMS)
def test_programs_are_bins_of_the_workspace(program: str) -> None:
    bins = {b for c in workspace().values() for b in c.bins}
    assert program in bins, f"target/release/{program} is no [[bin]] of a workspace crate"


@pytest.mark.parametrize("sub", ANALYSIS)
def test_analysis_subcommands_exist(sub: str) -> None:
    assert sub in analysis_subcommands(), f"python -m analysis has no subcommand {sub!r}"


@pytest.mark.parametrize("command", SNAKEMAKE)
def test_snakemake_targets_are_rules(command: str) -> None:
    missing = set(snakemake_targets(command)) - rules()
    assert not missing, f"{command}: no rule {sorted(missing)}"


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripts_exist_and_are_executable(script: str) -> None:
    path = REPO / "scripts" / script
    assert path.is_file(), f"scripts/{script} does not exist"
    assert os.access(path, os.X_OK), f"scripts/{script} is not executable"


def test_the_checks_catch_a_missing_target() -> None:
    # The checks themselves can fail: a bench, a package, a rule and a subcommand that do not exist.
    crates = workspace()
    assert cargo_problem("cargo bench -p cpsnark-sm --bench no_such_bench", crates)
    assert cargo_problem("cargo test -p no-such-crate", crates)
    assert cargo_problem("cargo run --release -p veccom --bin veccom-bench", crates) is None
    assert snakemake_targets("snakemake --cores 1 all --config a=1 b=[1,2] --forcerun x") == ["all"]
    assert "no_such_rule" not in rules()
    assert "no-such-subcommand" not in analysis_subcommands()
    text = "| a | `cargo bench -p x --bench y` |\n```bash\nscripts/install && snakemake all  # c\n```\n"
    assert readme_commands(text) == ["cargo bench -p x --bench y", "scripts/install", "snakemake all"]
