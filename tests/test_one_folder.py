"""One experiment, one folder: no shared file names an experiment (nor a shared configuration file
an experiment's keys or rules), no folder imports a folder it does not declare (an experiment's
none, a study's only the experiments it reads), and the analysis has no import cycle, between
files or between packages (each folder is a package of its own)."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml
from graphs import cycle

from analysis import experiments, folders, studies

REPO = Path(__file__).resolve().parents[1]

# The crates (the programs, which the experiments' folders describe) are not the harness.
CRATE_DIRS = {p.relative_to(REPO).parts[0] for p in REPO.glob("*/**/Cargo.toml") if "target" not in p.parts}
# Tests of particular experiments name them by design.
TEST_DIRS = ("analysis/tests/", "tests/")
# The folders read as packages: top directory -> the package their packages belong to.
FOLDER_ROOTS = {"experiments": experiments.__name__, "studies": studies.__name__}


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
        if top in CRATE_DIRS or top in FOLDER_ROOTS or f.startswith(TEST_DIRS):
            continue
        if f.endswith((".py", ".smk", ".sh")) or f == "Snakefile" or f.startswith("scripts/") or script(f):
            out.append(f)
    return out


def named_experiments(text: str) -> set[str]:
    """The experiments a text names, as a string or as an identifier (`db_sm_rsm`)."""
    found = set()
    for name in experiments.names():
        for form in {name, folders.identifier(name)}:
            if re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", text):
                found.add(name)
    return found


def test_no_shared_file_names_an_experiment() -> None:
    files = shared_files()
    assert "analysis/cli.py" in files and "Snakefile" in files and "rules/common.smk" in files
    assert "scripts/test" in files and ".ci/run" in files
    assert "analysis/render/report.py" in files and "analysis/studies/__init__.py" in files
    bad = [f"{f}: {sorted(n)}" for f in files if (n := named_experiments((REPO / f).read_text()))]
    why = "shared files name experiments (move the code into the folder, or a study's):\n"
    assert not bad, why + "\n".join(bad)


def test_the_name_check_finds_a_name() -> None:
    assert named_experiments("from analysis.experiments.db_sm_rsm import parser") == {"db-sm-rsm"}
    assert named_experiments('x = "cmix"') == {"cmix"}
    assert named_experiments("cmix-bench and dbsm") == set()


# ---- the configuration files ----------------------------------------------------------------------

# The configuration files every experiment shares: the defaults, the smoke configuration, the
# profiles. The values one experiment needs live in its folder (its descriptor's `smoke`, its
# rules' resources).
YAML_FILES = ("config.yaml", "config/*.yaml", "profiles/*/config.yaml")
# Shared configuration files that may name an experiment, its keys or its rules, and why.
YAML_EXEMPT: dict[str, str] = {}


def experiment_words() -> dict[str, str]:
    """Every configuration key an experiment brings and every rule of its benchmark rules, each
    with whose it is."""
    words = {}
    for e in experiments.all_experiments():
        words.update(dict.fromkeys(e.config, f"a configuration key of {e.name}"))
        if e.rules is not None:
            rules = re.findall(r"^rule (\w+):", (REPO / e.rules).read_text(), re.MULTILINE)
            words.update(dict.fromkeys(rules, f"a rule of {e.name} ({e.rules})"))
    return words


def yaml_words(data: Any) -> Iterator[str]:
    """The keys and text values of a YAML document, at every depth (comments are prose, not
    configuration, and are not read)."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield str(k)
            yield from yaml_words(v)
    elif isinstance(data, list):
        for v in data:
            yield from yaml_words(v)
    elif isinstance(data, str):
        yield data


def named_in_yaml(text: str) -> list[str]:
    """What of the experiments a configuration file names: an experiment, one of its keys or one
    of its rules."""
    own = experiment_words()
    found = []
    for word in yaml_words(yaml.safe_load(text)):
        if word in own:
            found.append(f"{word}: {own[word]}")
        found += [f"{word}: experiment {n}" for n in sorted(named_experiments(word))]
    return found


def test_no_shared_configuration_file_names_an_experiment_its_keys_or_its_rules() -> None:
    files = sorted({f for pattern in YAML_FILES for f in REPO.glob(pattern)})
    assert REPO / "config" / "smoke.yaml" in files and REPO / "profiles" / "slurm" / "config.yaml" in files
    bad = []
    for f in files:
        rel = str(f.relative_to(REPO))
        if rel not in YAML_EXEMPT:
            bad += [f"{rel}: {what}" for what in named_in_yaml(f.read_text())]
    why = "shared configuration files name what is an experiment's (move it into its folder):\n"
    assert not bad, why + "\n".join(bad)


def test_the_configuration_check_finds_keys_rules_and_names() -> None:
    text = "set-resources:\n  dbsm_calibration: {cargo: 1}\nveccom_n: [16]\nexperiments: [cmix]\n"
    found = named_in_yaml(text)
    assert [f.split(":")[0] for f in found] == ["dbsm_calibration", "veccom_n", "cmix"], found
    assert named_in_yaml("# veccom_n: [16] (a comment)\nentries: 16\nsmoke: true\n") == []


# ---- imports between files, folders and packages -----------------------------------------------


def module_files(root: Path = REPO) -> dict[str, Path]:
    """Every module of the analysis (its tests left out) and of the folders, by dotted name."""
    mods = {}
    for f in (root / "analysis").rglob("*.py"):
        rel = f.relative_to(root).with_suffix("")
        if "tests" in rel.parts:
            continue
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        mods[".".join(parts)] = f
    for top, parent in FOLDER_ROOTS.items():
        for f in (root / top).glob("*/*.py"):
            mods[f"{parent}.{folders.identifier(f.parent.name)}.{f.stem}"] = f
    return mods


def folder_packages(root: Path = REPO) -> dict[str, str]:
    """Every folder's package, with the folder (`experiments/<name>/`)."""
    return {
        f"{parent}.{folders.identifier(d.name)}": f"{top}/{d.name}/"
        for top, parent in FOLDER_ROOTS.items()
        for d in sorted((root / top).glob("*/"))
        if d.is_dir() and not d.name.startswith((".", "_"))
    }


def targets(name: str, node: ast.Import | ast.ImportFrom, known: set[str]) -> list[str]:
    """What an import statement of module `name` imports, as dotted names: a module or package it
    names whole (`from analysis.experiments import cmix` imports the package of cmix's folder),
    relative imports resolved from the module's package."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        package = name.rsplit(".", 1)[0].split(".")
        up = package[: len(package) - node.level + 1]
        base = ".".join([*up, *([node.module] if node.module else [])])
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def imports(mods: dict[str, Path], packages: Mapping[str, str] | None = None) -> dict[str, set[str]]:
    """Module -> the modules and folder packages it imports (at the top or inside a function)."""
    known = set(mods) | set(packages or {})
    out: dict[str, set[str]] = {}
    for name, f in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                deps |= {t for t in targets(name, node, known) if t in known and t != name}
        out[name] = deps
    return out


def folder_of(dotted: str, packages: Mapping[str, str]) -> str | None:
    """The folder package a dotted name is, or lies in (None: not in a folder)."""
    return next((p for p in packages if dotted == p or dotted.startswith(p + ".")), None)


# A Snakemake file of a folder imports with Python's syntax, in a file that is no Python.
SMK_IMPORT = re.compile(r"^\s*(?:from|import)\s+(analysis\.(?:experiments|studies)\.\w+)", re.MULTILINE)


def undeclared(root: Path, allowed: Mapping[str, set[str]]) -> list[str]:
    """Each import, by a folder's file, of another folder that `allowed` (folder package -> the
    folder packages it may import) does not give it, following the folders' packages however
    they are named: `analysis.experiments.<x>`, `from analysis.experiments import <x>`,
    relative (`from ..<x> import ...`), and the imports of its Snakemake files."""
    packages = folder_packages(root)
    mods = module_files(root)
    # (file, the folder it is in, what it imports)
    found: list[tuple[Path, str | None, str]] = []
    for module, deps in imports(mods, packages).items():
        found += [(mods[module], folder_of(module, packages), t) for t in deps]
    for top, parent in FOLDER_ROOTS.items():
        for smk in (root / top).glob("*/*.smk"):
            own = f"{parent}.{folders.identifier(smk.parent.name)}"
            found += [(smk, own, t) for t in SMK_IMPORT.findall(smk.read_text())]
    bad = []
    for f, own, target in found:
        other = folder_of(target, packages)
        if own is None or other is None or other == own or other in allowed.get(own, set()):
            continue
        where = f"{f.relative_to(root)} imports {target} ({packages[other]})"
        bad.append(f"{where}, which its folder does not declare")
    return sorted(set(bad))


def declared_imports() -> dict[str, set[str]]:
    """What each folder may import: an experiment's, no other folder; a study's, the folders of
    the experiments it reads."""
    allowed = {experiments.package_name(e.name): set[str]() for e in experiments.all_experiments()}
    for s in studies.all_studies():
        allowed[studies.package_name(s.name)] = {experiments.package_name(e) for e in s.experiments}
    return allowed


def test_no_folder_imports_a_folder_it_does_not_declare() -> None:
    allowed = declared_imports()
    assert set(allowed) == set(folder_packages()), "every folder is an experiment's or a study's"
    bad = undeclared(REPO, allowed)
    assert not bad, "\n".join(bad)


def _tree(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_the_folder_check_finds_an_undeclared_import_however_it_is_written(tmp_path: Path) -> None:
    """Two experiments a and b, and a study s that reads a: every way a folder can import another
    it does not declare is found, and the declared ones are not."""
    _tree(tmp_path, {
        "analysis/__init__.py": "",
        "experiments/a/descriptor.py": "from analysis.experiments.b import parser\n",
        "experiments/a/section.py": "def f():\n    from ..b import parser as p\n",
        "experiments/a/synthetic.py": "from analysis.experiments import b\n",
        "experiments/a/tables.py": "import analysis.experiments.b.parser as bp\nfrom .descriptor import x\n",
        "experiments/a/perf.smk": "from analysis.experiments.b import descriptor as other\n",
        "experiments/b/descriptor.py": "from analysis.experiments import Experiment\n",
        "experiments/b/parser.py": "",
        "studies/s/study.py": "from analysis.experiments.a import section\n"
                              "from analysis.experiments.b import parser\n",
        "studies/s/more.py": "from analysis.studies.t import study\n",
        "studies/t/study.py": "",
    })  # fmt: skip
    allowed = {"analysis.experiments.a": set(), "analysis.experiments.b": set(),
               "analysis.studies.s": {"analysis.experiments.a"}, "analysis.studies.t": set()}  # fmt: skip
    bad = undeclared(tmp_path, allowed)
    assert [b.split(" imports ")[0] for b in bad] == [
        "experiments/a/descriptor.py", "experiments/a/perf.smk", "experiments/a/section.py",
        "experiments/a/synthetic.py", "experiments/a/tables.py", "studies/s/more.py", "studies/s/study.py",
    ], bad  # fmt: skip
    assert all("experiments/b/" in b for b in bad if not b.startswith("studies/s/more.py")), bad


def test_a_new_undeclared_import_in_the_repository_fails_the_check(tmp_path: Path) -> None:
    """The repository's own folders with one import added between two experiments' folders."""
    for top in ("analysis", *FOLDER_ROOTS):
        shutil.copytree(REPO / top, tmp_path / top, ignore=shutil.ignore_patterns("__pycache__"))
    section = tmp_path / "experiments" / "veccom" / "section.py"
    section.write_text(section.read_text() + "\nfrom ..cmix import parser as cmix_parser\n")
    bad = undeclared(tmp_path, declared_imports())
    assert bad == [
        "experiments/veccom/section.py imports analysis.experiments.cmix.parser (experiments/cmix/), "
        "which its folder does not declare"
    ]


def package_of(module: str) -> str:
    """A module's package: analysis.<subpackage>, a folder's package, or a top module."""
    parts = module.split(".")
    if ".".join(parts[:2]) in FOLDER_ROOTS.values() and len(parts) > 3:
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def test_no_import_cycle_between_files_or_packages() -> None:
    mods = module_files()
    graph = imports(mods)
    assert "analysis.experiments.db_sm_rsm.descriptor" in graph and graph["analysis.cli"]
    assert "analysis.studies.traceable_mixnets.study" in graph
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


def test_descriptors_and_studies_are_read_without_getattr() -> None:
    """Every optional part of a descriptor or a study is a declared field: nothing is looked up
    by a name in a string."""
    for package in ("analysis/experiments", "analysis/studies"):
        for f in (REPO / package).rglob("*.py"):
            assert "getattr(" not in f.read_text(), f"{f.relative_to(REPO)} looks a name up with getattr"


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
