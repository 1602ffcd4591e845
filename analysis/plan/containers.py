"""Container images of the experiments, and jobs run inside them (the `runner` config key).

Every experiment gets an image `tmbench-<experiment>:<commit>` built FROM the suite's base
image, holding the programs the workflow built on the host (and what its descriptor's `Image`
adds), laid out as in the repository under /opt/tmbench, so that a job runs the same command
line in the image as natively. The analysis has an image too. Nothing in an image build needs
the network: the build context is staged on the host (binaries from target/release, Node and
the packages of `npm ci`, Python wheels downloaded from PyPI).

The base is Debian bookworm with `containers/base/packages.txt`: where a registry is reachable,
`debian:bookworm-slim` with those packages (containers/base/Containerfile); where none is, the
same packages bootstrapped from Debian's archive (debootstrap --variant=minbase) and imported.

    python3 -m analysis.plan.containers check ENGINE
    python3 -m analysis.plan.containers base ENGINE --id-out FILE
    python3 -m analysis.plan.containers image ENGINE NAME --base-id FILE --tag TAG --id-out FILE
    python3 -m analysis.plan.containers save ENGINE --id FILE --out ARCHIVE

A loaded archive holds its image as `localhost/tmbench-<name>:<commit>` and `...:latest`.

podman reads the suite's own settings (containers/containers.conf) through CONTAINERS_CONF.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from analysis import experiments
from analysis.plan import upstream

REPO = Path(__file__).resolve().parents[2]
CONTAINERS = REPO / "containers"
ENGINES = ("podman", "docker")
# Where the repository's layout lives inside every image.
WORKDIR = "/opt/tmbench"
DEBIAN_SUITE = "bookworm"
DEBIAN_IMAGE = "docker.io/library/debian:bookworm-slim"
ANALYSIS = "analysis"
# The analysis image's Python packages: these names' pins from requirements.txt.
ANALYSIS_PACKAGES = ("numpy", "pandas", "matplotlib", "pyarrow", "jsonschema", "PyYAML", "reportlab", "pypdf")
# The analysis image holds the analysis package, the experiments' and studies' folders and the
# published figures the parsers read.
ANALYSIS_PATHS = ("analysis", "experiments", "studies", "config", "config.yaml", "measure/schema")
# Environment a job passes into its container (the rest of the host's environment stays out).
PASSED_ENV = ("SUITE_GIT_COMMIT", "SUITE_GIT_DIRTY", "SUITE_PROGRESS", "RAYON_NUM_THREADS")


class ContainerError(RuntimeError):
    """A container step that cannot be done; the message is one line naming what failed."""


def engine_env() -> dict[str, str]:
    """The environment of an engine command: podman reads the suite's containers.conf."""
    env = dict(os.environ)
    env["CONTAINERS_CONF"] = str(CONTAINERS / "containers.conf")
    return env


def _run(argv: Sequence[str], *, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, env=engine_env(), timeout=timeout,
                          check=False)  # fmt: skip


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # The last line of an engine's error is usually the cause; keep it short.
    return (lines[-1] if lines else "no output")[:300]


def engine_problem(engine: str) -> str | None:
    """Why `engine` cannot run containers here (one line), or None if it can."""
    if engine not in ENGINES:
        return f"runner {engine!r} is not a container engine; choose one of {', '.join(ENGINES)}"
    if shutil.which(engine) is None:
        return (
            f"runner={engine}: '{engine}' is not installed (not on PATH); "
            "scripts/install --containers installs podman and docker, or choose runner=native"
        )
    try:
        info = _run([engine, "info"], timeout=120)
    except subprocess.TimeoutExpired:
        return f"runner={engine}: '{engine} info' did not answer within 2 minutes"
    if info.returncode != 0:
        why = _first_line(info.stderr)
        return f"runner={engine}: the {engine} engine cannot run here ({engine} info: {why})"
    return None


def image_tag(provenance: dict[str, object]) -> str:
    """The tag of this code's images: the commit (12 digits), `-dirty` with uncommitted changes."""
    commit = str(provenance.get("commit") or "unknown")[:12]
    return commit + ("-dirty" if provenance.get("dirty") else "")


def image_name(name: str, tag: str) -> str:
    return f"localhost/tmbench-{name}:{tag}"


def image_exists(engine: str, image: str) -> bool:
    return _run([engine, "image", "inspect", image], timeout=120).returncode == 0


def image_id(engine: str, image: str) -> str:
    out = _run([engine, "image", "inspect", "--format", "{{.Id}}", image], timeout=120)
    if out.returncode != 0:
        raise ContainerError(f"{engine} has no image {image} ({_first_line(out.stderr)})")
    ident = out.stdout.strip()
    return ident if ident.startswith("sha256:") else f"sha256:{ident}"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


# ---- the base image ---------------------------------------------------------------------------


def base_packages() -> list[str]:
    text = (CONTAINERS / "base" / "packages.txt").read_text(encoding="utf-8")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def base_name() -> str:
    """The base image's name: the Debian suite and a digest of what defines it."""
    h = hashlib.sha256()
    for f in ("packages.txt", "Containerfile"):
        h.update((CONTAINERS / "base" / f).read_bytes())
    return f"localhost/tmbench-base:{DEBIAN_SUITE}-{h.hexdigest()[:12]}"


def debian_mirror() -> str:
    """The Debian archive the host's apt uses (deb.debian.org where it says nothing)."""
    for f in [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]:
        try:
            text = f.read_text(encoding="utf-8")
        except OSError:
            continue
        for m in re.finditer(r"(?:^deb\s+(?:\[[^\]]*\]\s+)?|^URIs:\s*)(\S+)", text, re.M):
            uri = m.group(1)
            if "security" not in uri:
                return uri
    return "http://deb.debian.org/debian"


def make_base(engine: str, say: object = print) -> str:
    """The base image (made if missing): pulled and extended where a registry answers, else
    bootstrapped from Debian's archive. Returns its name."""
    name = base_name()
    if image_exists(engine, name):
        return name
    log = say if callable(say) else print
    if copy_from_other_engine(engine, name, "base", log):
        return name
    try:
        pulled = _run([engine, "pull", DEBIAN_IMAGE], timeout=300)
    except subprocess.TimeoutExpired:
        pulled = None
    if pulled is not None and pulled.returncode == 0:
        log(f"[containers] base: {DEBIAN_IMAGE} pulled; installing {', '.join(base_packages())} with apt")
        built = _run([engine, "build", "--build-arg", f"DEBIAN={DEBIAN_IMAGE}", "--tag", name,
                      str(CONTAINERS / "base")], timeout=1800)  # fmt: skip
        if built.returncode != 0:
            why = _first_line(built.stderr)
            raise ContainerError(f"building the base image from {DEBIAN_IMAGE} failed: {why}")
        return name
    _bootstrap(engine, name, log)
    return name


def copy_from_other_engine(engine: str, name: str, what: str, log: object) -> bool:
    """Image `name` as the other engine holds it, where it holds one of that name, loaded into
    `engine` (saved by one, loaded by the other: an image is built once for both). A name that
    carries the digest of the image's definition (the base) or the commit its contents come from
    (an experiment's or the analysis's image, never a `-dirty` one) is the same image whichever
    engine made it. False where there is none to copy, or the copy failed (said on `log`)."""
    other = next(e for e in ENGINES if e != engine)
    if shutil.which(other) is None:
        return False
    try:
        if not image_exists(other, name):
            return False
    except subprocess.TimeoutExpired:
        return False
    say = log if callable(log) else print
    fmt = ["--format", "docker-archive"] if other == "podman" else []
    saved = subprocess.Popen([other, "save", *fmt, name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             env=engine_env())  # fmt: skip
    loaded = subprocess.run([engine, "load"], stdin=saved.stdout, capture_output=True, text=True,
                            env=engine_env(), check=False)  # fmt: skip
    if saved.stdout is not None:
        saved.stdout.close()
    saved.wait()
    if saved.returncode != 0 or loaded.returncode != 0 or not image_exists(engine, name):
        why = _first_line(loaded.stderr)
        say(f"[containers] {what}: copying {name} from {other} failed ({why}); making it anew")
        return False
    say(f"[containers] {what}: {name} copied from {other}'s images (the same definition)")
    return True


def _bootstrap(engine: str, name: str, log: object) -> None:
    if shutil.which("debootstrap") is None:
        raise ContainerError(
            "no registry is reachable and debootstrap is not installed "
            "(scripts/install --containers installs it)"
        )
    mirror = debian_mirror()
    say = log if callable(log) else print
    say(f"[containers] base: no registry reachable; bootstrapping Debian {DEBIAN_SUITE} from {mirror}")
    with tempfile.TemporaryDirectory(prefix="tmbench-base-") as tmp:
        root = Path(tmp) / "rootfs"
        boot = subprocess.run(
            ["debootstrap", "--variant=minbase", f"--include={','.join(base_packages())}", DEBIAN_SUITE,
             str(root), mirror], capture_output=True, text=True, check=False)  # fmt: skip
        if boot.returncode != 0:
            why = _first_line(boot.stdout + boot.stderr)
            raise ContainerError(f"debootstrap of Debian {DEBIAN_SUITE} failed: {why}")
        # apt's caches and lists are of no use in an image without network.
        for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for f in (root / junk).glob("*"):
                if f.is_file():
                    f.unlink()
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run([engine, "import", "--change", 'CMD ["/bin/bash"]', "-", name],
                                  stdin=tar.stdout, capture_output=True, text=True, env=engine_env(),
                                  check=False)  # fmt: skip
        tar.wait()
        if imported.returncode != 0 or tar.returncode != 0:
            raise ContainerError(f"importing the bootstrapped base failed: {_first_line(imported.stderr)}")


# ---- the images -------------------------------------------------------------------------------


def _copy(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        shutil.copy2(src, dest)


def stage_upstream(name: str, context: Path, cache: Path) -> None:
    """An experiment of the paper's own code: its builds (analysis/plan/upstream_build.py) and the
    pinned trees its runs read, under `host/` at their absolute paths in the cache (the image puts
    them there), so that a job's command line names them in the image as on the host."""
    exp = experiments.get(name)
    pins = upstream.pins()
    dirs = [upstream.build_dir(cache, pins.part(p)) for p in exp.upstream]
    dirs += [upstream.tree_dir(cache, pins.trees[t]) for t in exp.image.upstream_trees]
    for d in dirs:
        if not d.is_dir():
            raise ContainerError(f"{name}: {d} is not built (snakemake build builds it)")
        _copy(d, context / "host" / d.relative_to(d.anchor))


def stage_experiment(name: str, context: Path) -> None:
    """The build context of one experiment's image: its programs at target/release/, its image
    paths, and Node with its packages where the descriptor asks for them."""
    exp = experiments.get(name)
    for prog in exp.programs:
        src = REPO / prog.path
        if not src.exists():
            raise ContainerError(f"{name}: {prog.path} is not built (snakemake build builds it)")
        _copy(src, context / prog.path)
    for rel in exp.image.paths:
        _copy(REPO / rel, context / rel)
    if exp.image.node:
        node = shutil.which("node")
        if node is None:
            raise ContainerError(f"{name}: its image needs Node.js, and 'node' is not on PATH")
        _copy(Path(node).resolve(), context / "bin" / "node")
        for pkg in exp.node_packages:
            modules = REPO / pkg / "node_modules"
            if not modules.is_dir():
                raise ContainerError(f"{name}: {pkg}/node_modules is missing (npm ci installs it)")
            _copy(modules, context / pkg / "node_modules")


def stage_analysis(context: Path) -> None:
    """The analysis image's context: wheels of its Python packages (downloaded from PyPI by the
    host's pip), pip's own wheel, and the analysis package with the data it reads."""
    pins = [
        ln.strip()
        for ln in (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if re.split(r"[=<>~ ]", ln.strip())[0] in ANALYSIS_PACKAGES
    ]
    wheels = context / "wheels"
    wheels.mkdir(parents=True)
    (wheels / "requirements.txt").write_text("\n".join(pins) + "\n", encoding="utf-8")
    pip = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
           "--only-binary=:all:", "--python-version", "3.11", "--platform", "manylinux2014_x86_64",
           "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux_2_17_x86_64"]  # fmt: skip
    got = subprocess.run([*pip, "-d", str(wheels), "-r", str(wheels / "requirements.txt")],
                         capture_output=True, text=True, check=False)  # fmt: skip
    if got.returncode != 0:
        raise ContainerError(f"downloading the analysis's wheels failed: {_first_line(got.stderr)}")
    pipdir = context / "pip"
    got = subprocess.run([*pip, "--no-deps", "-d", str(pipdir), "pip"], capture_output=True, text=True,
                         check=False)  # fmt: skip
    if got.returncode != 0:
        raise ContainerError(f"downloading pip's wheel failed: {_first_line(got.stderr)}")
    (wheel,) = pipdir.glob("pip-*.whl")
    wheel.rename(pipdir / "pip.whl")
    repo = context / "repo"
    for rel in ANALYSIS_PATHS:
        _copy(REPO / rel, repo / rel)
    # The parsers read each experiment's published figures from its crate's data/ directory.
    for exp in experiments.all_experiments():
        for prog in exp.programs:
            for src in prog.sources:
                if (REPO / src / "data").is_dir() and not (repo / src / "data").exists():
                    _copy(REPO / src / "data", repo / src / "data")


def _provenance_args(image: str) -> list[str]:
    """Build arguments the Containerfiles turn into the image's environment: its own name and the
    commit it was built from (as the workflow exported it), so that a program started by hand in
    the image still reports them; a job's own environment overrides them."""
    values = {"IMAGE": image, "COMMIT": os.environ.get("SUITE_GIT_COMMIT", ""),
              "DIRTY": os.environ.get("SUITE_GIT_DIRTY", "")}  # fmt: skip
    return [a for k, v in values.items() for a in ("--build-arg", f"{k}={v}")]


def build_image(engine: str, name: str, base: str, tag: str, cache: Path | None = None) -> str:
    """Builds image `name` (an experiment, or the analysis) FROM `base`, or copies it from the
    other engine where that one built it from the same commit; returns its name. An experiment
    of the paper's own code takes its builds from the cache `cache`."""
    image = image_name(name, tag)
    if not tag.endswith("-dirty") and copy_from_other_engine(engine, image, name, _to_stderr):
        return image
    with tempfile.TemporaryDirectory(prefix=f"tmbench-image-{name}-") as tmp:
        context = Path(tmp)
        if name == ANALYSIS:
            stage_analysis(context)
            containerfile = CONTAINERS / "analysis" / "Containerfile"
        elif experiments.get(name).upstream:
            stage_experiment(name, context / "repo")
            stage_upstream(name, context, cache if cache is not None else upstream.cache_root())
            containerfile = CONTAINERS / "upstream" / "Containerfile"
        else:
            stage_experiment(name, context)
            containerfile = CONTAINERS / "program" / "Containerfile"
        built = _run([engine, "build", "--file", str(containerfile), "--build-arg", f"BASE={base}",
                      *_provenance_args(image),
                      "--label", f"org.opencontainers.image.revision={tag}",
                      "--label", f"org.opencontainers.image.title=tmbench-{name}",
                      "--network", "none", "--tag", image, str(context)], timeout=3600)  # fmt: skip
        if built.returncode != 0:
            raise ContainerError(f"building {image} failed: {_first_line(built.stderr)}")
    return image


# ---- jobs in containers -----------------------------------------------------------------------


def inside(results: str) -> str:
    """Where the results directory is inside a container: at the same absolute path, or at the
    same relative path under the image's repository layout."""
    return results if Path(results).is_absolute() else f"{WORKDIR}/{results}"


def run_prefix(engine: str, image: str, ident: str, results: str) -> list[str]:
    """The command that runs a job's command line inside `image`, with the results directory
    mounted where the command line expects it, no network beyond the container's own loopback,
    the host's name, and the environment a job needs (its provenance and the runner's name and
    digest)."""
    host = Path(results).resolve()
    argv = ["env", f"CONTAINERS_CONF={CONTAINERS / 'containers.conf'}"] if engine == "podman" else []
    # The host's name inside (--uts host): a report's machine block names the machine, not the
    # container.
    argv += [engine, "run", "--rm", "--network", "none", "--uts", "host", "--workdir", WORKDIR,
             "--volume", f"{host}:{inside(results)}"]  # fmt: skip
    if engine == "docker" and os.getuid() != 0:
        # Docker's engine runs as root: without this, a user's results would be written as root
        # (podman, rootless, maps the container's root to the user already). HOME: a user the
        # image has no entry for gets /, where nothing may write.
        argv += ["--user", f"{os.getuid()}:{os.getgid()}", "--env", "HOME=/tmp"]
    for var in PASSED_ENV:
        if var in os.environ:
            argv += ["--env", f"{var}={os.environ[var]}"]
    for var, value in (("SUITE_RUNNER", engine), ("SUITE_IMAGE", image), ("SUITE_IMAGE_ID", ident)):
        argv += ["--env", f"{var}={value}"]
    return [*argv, image]


def latest_name(image: str) -> str:
    """The image's name with the tag `latest`, the name a loaded archive is run by."""
    return image.rsplit(":", 1)[0] + ":latest"


def save_archive(engine: str, image: str, out: Path) -> None:
    """`image` as a docker-archive that `docker load` and `podman load` read (and Apptainer's
    docker-archive:), under two names: with its commit's tag, and with `latest` so that the
    README's one-line `docker run` needs no commit."""
    latest = latest_name(image)
    tagged = _run([engine, "tag", image, latest], timeout=120)
    if tagged.returncode != 0:
        raise ContainerError(f"tagging {image} as {latest} failed: {_first_line(tagged.stderr)}")
    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    fmt = ["--format", "docker-archive"] if engine == "podman" else []
    saved = _run([engine, "save", *fmt, "--output", str(tmp), image, latest], timeout=1800)
    if saved.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise ContainerError(f"saving {image} failed: {_first_line(saved.stderr)}")
    # docker writes its archives readable by their owner only; an archive is for copying to
    # other machines and users, like any other result.
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o666 & ~umask)
    tmp.replace(out)


# ---- command line -----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    doc = (__doc__ or "").split("\n")[0]
    ap = argparse.ArgumentParser(prog="python3 -m analysis.plan.containers", description=doc)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="can ENGINE run containers here?")
    c.add_argument("engine")
    b = sub.add_parser("base", help="make the base image (if missing) and write its id")
    b.add_argument("engine")
    b.add_argument("--id-out", type=Path, required=True)
    i = sub.add_parser("image", help="build one image (an experiment, or 'analysis') and write its id")
    i.add_argument("engine")
    i.add_argument("name")
    i.add_argument("--base-id", type=Path, required=True, help="the base image's id file")
    i.add_argument("--tag", required=True)
    i.add_argument("--id-out", type=Path, required=True)
    i.add_argument("--upstream-cache", type=Path, default=None, help="the cache of the paper's code's builds")
    s = sub.add_parser("save", help="write an image as an archive (docker-archive format)")
    s.add_argument("engine")
    s.add_argument("--id", type=Path, required=True, help="the image's id file")
    s.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    try:
        if a.cmd == "check":
            problem = engine_problem(a.engine)
            if problem:
                print(problem, file=sys.stderr)
                return 1
            print(f"{a.engine} can run containers here")
        elif a.cmd == "base":
            _check(a.engine)
            name = make_base(a.engine, _to_stderr)
            _write(a.id_out, f"{name} {image_id(a.engine, name)}\n")
        elif a.cmd == "image":
            _check(a.engine)
            base = a.base_id.read_text(encoding="utf-8").split()[0]
            image = build_image(a.engine, a.name, base, a.tag, a.upstream_cache)
            _write(a.id_out, f"{image} {image_id(a.engine, image)}\n")
        elif a.cmd == "save":
            save_archive(a.engine, a.id.read_text(encoding="utf-8").split()[0], a.out)
    except ContainerError as e:
        print(f"containers: {e}", file=sys.stderr)
        return 1
    return 0


def _check(engine: str) -> None:
    problem = engine_problem(engine)
    if problem:
        raise ContainerError(problem)


if __name__ == "__main__":
    sys.exit(main())
