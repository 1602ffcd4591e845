"""The container plumbing of analysis.plan.containers around the engines' command lines: what a
job's `docker run` carries, how an archive is written, where the base image comes from. The
engines here are small scripts on PATH that log their arguments; the real engines run in
scripts/test's podman and docker parts."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from analysis.plan import containers


def _engine(bindir: Path, name: str, body: str) -> Path:
    """A stand-in engine: logs each call's arguments to <name>.calls, then runs `body`."""
    bindir.mkdir(exist_ok=True)
    script = bindir / name
    script.write_text(f'#!/bin/bash\necho "$*" >> "{bindir}/{name}.calls"\n{body}\n', encoding="utf-8")
    script.chmod(0o755)
    return script


def _calls(bindir: Path, name: str) -> list[str]:
    f = bindir / f"{name}.calls"
    return f.read_text(encoding="utf-8").splitlines() if f.exists() else []


def test_a_docker_job_runs_as_the_invoking_user_without_network(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:  # fmt: skip
    monkeypatch.setattr(os, "getuid", lambda: 1234)
    monkeypatch.setattr(os, "getgid", lambda: 567)
    argv = containers.run_prefix("docker", "localhost/tmbench-veccom:abc", "sha256:00", str(tmp_path))
    assert argv[:2] == ["docker", "run"]
    assert argv[argv.index("--user") + 1] == "1234:567"
    assert argv[argv.index("--network") + 1] == "none"
    assert f"{tmp_path.resolve()}:{tmp_path}" in argv
    assert "SUITE_RUNNER=docker" in argv and "SUITE_IMAGE_ID=sha256:00" in argv
    assert argv[-1] == "localhost/tmbench-veccom:abc"
    # As root, and with podman (rootless podman maps the container's root to the user), no --user.
    monkeypatch.setattr(os, "getuid", lambda: 0)
    assert "--user" not in containers.run_prefix("docker", "i:t", "sha256:00", str(tmp_path))
    monkeypatch.setattr(os, "getuid", lambda: 1234)
    podman = containers.run_prefix("podman", "i:t", "sha256:00", str(tmp_path))
    assert "--user" not in podman and podman[0] == "env" and podman[1].startswith("CONTAINERS_CONF=")


def test_an_archive_names_commit_and_latest_readable_by_others(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:  # fmt: skip
    bindir = tmp_path / "bin"
    # Like docker: the archive is written readable by its owner only.
    _engine(bindir, "docker", 'if [ "$1" = save ]; then out=$3; echo archive > "$out"; chmod 600 "$out"; fi')
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    old = os.umask(0o022)
    try:
        out = tmp_path / "images" / "tmbench-veccom.tar"
        out.parent.mkdir()
        containers.save_archive("docker", "localhost/tmbench-veccom:abc123", out)
    finally:
        os.umask(old)
    assert out.read_text(encoding="utf-8") == "archive\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert not list(out.parent.glob("*.tmp"))
    assert _calls(bindir, "docker") == [
        "tag localhost/tmbench-veccom:abc123 localhost/tmbench-veccom:latest",
        f"save --output {out}.tmp localhost/tmbench-veccom:abc123 localhost/tmbench-veccom:latest",
    ]


def test_a_failed_save_leaves_no_archive_and_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bindir = tmp_path / "bin"
    _engine(
        bindir,
        "docker",
        'if [ "$1" = save ]; then echo partial > "$3"; echo "Error: no space left" >&2; exit 1; fi',
    )
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "tmbench-veccom.tar"
    with pytest.raises(
        containers.ContainerError, match="saving localhost/tmbench-veccom:abc failed: Error: no space left"
    ):
        containers.save_archive("docker", "localhost/tmbench-veccom:abc", out)
    assert not out.exists() and not (tmp_path / "tmbench-veccom.tar.tmp").exists()


def test_the_base_is_copied_from_the_other_engine_before_any_pull_or_bootstrap(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bindir = tmp_path / "bin"
    name = containers.base_name()
    # podman holds the base; docker has it only once it has loaded what podman saved.
    _engine(bindir, "podman", 'case $1 in image) exit 0 ;; save) echo "base archive" ;; esac')
    _engine(
        bindir,
        "docker",
        f'''case $1 in
image) [ -f "{bindir}/loaded" ] ;;
load) [ "$(cat)" = "base archive" ] && touch "{bindir}/loaded" ;;
*) exit 1 ;;
esac''',
    )
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    said: list[str] = []
    assert containers.make_base("docker", said.append) == name
    assert said == [f"[containers] base: {name} copied from podman's images (the same definition)"]
    assert f"save --format docker-archive {name}" in _calls(bindir, "podman")
    assert not [c for c in _calls(bindir, "docker") if c.startswith(("pull", "import", "build"))]


def test_a_failed_copy_of_the_base_falls_back_to_making_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bindir = tmp_path / "bin"
    _engine(bindir, "podman", 'case $1 in image) exit 0 ;; save) echo "base archive" ;; esac')
    # docker's load fails, and so does its pull: the base is then bootstrapped (stopped here).
    _engine(
        bindir, "docker", 'case $1 in load) echo "Error: unexpected EOF" >&2; exit 1 ;; *) exit 1 ;; esac'
    )
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    boots: list[str] = []
    monkeypatch.setattr(containers, "_bootstrap", lambda engine, name, log: boots.append(engine))
    said: list[str] = []
    containers.make_base("docker", said.append)
    assert said[0].endswith("failed (Error: unexpected EOF); making it anew"), said
    assert any(c.startswith("pull ") for c in _calls(bindir, "docker"))
    assert boots == ["docker"]


@pytest.mark.parametrize("tag, copied", [("0123456789ab", True), ("0123456789ab-dirty", False)])
def test_an_image_one_engine_built_from_a_commit_is_loaded_by_the_other_not_built_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tag: str, copied: bool
) -> None:
    """An experiment's image of a commit is the same whichever engine builds it: docker holds it,
    podman loads docker's copy instead of building. An image of uncommitted code (`-dirty`) may
    differ from one build to the next, and is built."""
    bindir = tmp_path / "bin"
    image = containers.image_name("veccom", tag)
    _engine(bindir, "docker", 'case $1 in image) exit 0 ;; save) echo "veccom archive" ;; esac')
    _engine(
        bindir,
        "podman",
        f'''case $1 in
image) [ -f "{bindir}/loaded" ] ;;
load) [ "$(cat)" = "veccom archive" ] && touch "{bindir}/loaded" ;;
build) echo "built" ;;
*) exit 1 ;;
esac''',
    )
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(containers, "stage_experiment", lambda name, context: None)
    assert containers.build_image("podman", "veccom", "localhost/tmbench-base:x", tag) == image
    builds = [c for c in _calls(bindir, "podman") if c.startswith("build")]
    assert (f"save {image}" in _calls(bindir, "docker")) == copied
    assert bool(builds) != copied, builds


def test_the_pdf_names_the_image_the_analysis_ran_in(monkeypatch: pytest.MonkeyPatch) -> None:
    from analysis.render.report import analysis_runner

    monkeypatch.delenv("SUITE_RUNNER", raising=False)
    assert analysis_runner() == ""
    monkeypatch.setenv("SUITE_RUNNER", "docker")
    monkeypatch.setenv("SUITE_IMAGE", "localhost/tmbench-analysis:abc")
    monkeypatch.setenv("SUITE_IMAGE_ID", "sha256:0123456789abcdef0123")
    assert analysis_runner() == " in docker image localhost/tmbench-analysis:abc (digest 0123456789ab)"
    # Started by hand without an id: the image's own name, and no digest to give.
    monkeypatch.delenv("SUITE_IMAGE_ID")
    assert analysis_runner() == " in docker image localhost/tmbench-analysis:abc (digest ?)"
