"""Config validation: a bad value stops the run, naming the key and the allowed values."""

from __future__ import annotations

import yaml
from wfhelpers import REPO, Workflow

# Every bad value at once (one Snakemake start is several seconds): key -> (value, expected text)
BAD_VALUES = {
    "hash": (["blake2"], ["config key 'hash[0]'", "'blake2'", "poseidon, sha256"]),
    "security": (["64"], ["config key 'security[0]'", "'64'", "128, paper"]),
    "statements": (["sm", "xsm"], ["config key 'statements[1]'", "sm, rsm"]),
    "experiments": (["zksnark"], ["config key 'experiments[0]'", "db-sm-rsm"]),
    "curve": (["bn256"], ["config key 'curve[0]'", "bn254, bls12-381"]),
    "mode": (["slow"], ["config key 'mode[0]'", "fast, paper"]),
    "zksnark_provers": (["gpu"], ["config key 'zksnark_provers[0]'", "wasm, native"]),
    "entries": (1, ["config key 'entries'", ">= 2"]),
    "mixers": ("four", ["config key 'mixers'", "'four' is not of type 'integer'"]),
    "n": (100, ["unknown config key 'n': the paper's n is the key 'entries'"]),
    "threads": ([0], ["config key 'threads[0]'", ">= 1"]),
    "repetitions": (0, ["config key 'repetitions'", ">= 1"]),
    "collab_factor": (0, ["config key 'collab_factor'", "> 0"]),
    "cpsnark_samples": (5, ["config key 'cpsnark_samples'", ">= 10"]),
    "sweep_entries": ([100, 1], ["config key 'sweep_entries[1]'", ">= 2"]),
    "sweep_mixers": ([65], ["config key 'sweep_mixers[0]'", "<= 64"]),
    "memory_limit_gib": (-2, ["config key 'memory_limit_gib'", "> 0"]),
    "seed": (-1, ["config key 'seed'", ">= 0"]),
    "results": ("my results", ["config key 'results'", "does not match"]),
    "colab_factor": (2, ["unknown config key 'colab_factor'; known keys:", "collab_factor"]),
    "cmix_clients": ([500, 8], ["config key 'cmix_clients[1]'", ">= 16"]),
    "cmix_groups": (["ec", "p256"], ["config key 'cmix_groups[1]'", "ec, mg, mg-full"]),
    "cmix_reps": (0, ["config key 'cmix_reps'", ">= 1"]),
    "mithril_native_n": ([], ["config key 'mithril_native_n'", "should be non-empty"]),
    "mithril_circuit_n": ([2, 2000], ["config key 'mithril_circuit_n[1]'", "<= 1024"]),
    "mithril_size_n": ([0], ["config key 'mithril_size_n[0]'", ">= 1"]),
}


def test_every_bad_value_is_rejected_with_key_and_allowed_values(
    workflow_copy: Workflow,
) -> None:
    bad = {key: value for key, (value, _) in BAD_VALUES.items()}
    proc = workflow_copy.snakemake(
        "--dry-run", "--cores", "1", "all", *workflow_copy.configfile(**bad), check=False
    )
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    assert "invalid configuration" in output
    for key, (_, expected) in BAD_VALUES.items():
        for text in expected:
            assert text in output, f"{key}: {text!r} missing from:\n{output}"


def test_bad_value_on_the_command_line_is_rejected(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake(
        "--dry-run", "--cores", "1", "all", "--config", "hash=[poseidon,md5]", "threads=[1,x]", check=False
    )
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    assert "config key 'hash[1]': 'md5' is not allowed; allowed values: poseidon, sha256" in output
    assert "config key 'threads[1]'" in output


def test_default_config_is_the_papers_setting() -> None:
    from analysis.experiments import names
    from analysis.plan import settings

    config = yaml.safe_load((REPO / "config.yaml").read_text())
    settings.check(config)
    assert config["experiments"] == list(names())
    assert config["entries"] == 10000 and config["mixers"] == 4
    assert config["hash"] == ["poseidon"] and config["curve"] == ["bn254"]
    assert config["statements"] == ["sm", "rsm"] and config["security"] == ["128"]
    assert config["collab_factor"] == 2.0


def test_each_default_is_written_once() -> None:
    """config.yaml sets the shared keys (config/schema.yaml), each to the schema's default, and
    `experiments: all`; an experiment's own keys have their defaults in its descriptor only.
    smoke.yaml sets only shared keys: each experiment's smoke values are in its descriptor."""
    shared = yaml.safe_load((REPO / "config/schema.yaml").read_text())["properties"]
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    assert set(config) == set(shared)
    assert config.pop("experiments") == "all"
    assert {k: v for k, v in config.items()} == {k: shared[k]["default"] for k in config}
    smoke = yaml.safe_load((REPO / "config/smoke.yaml").read_text())
    assert set(smoke) <= set(shared) and smoke["smoke"] is True


def test_the_smoke_configuration_takes_each_folders_values_under_the_given_ones() -> None:
    """`smoke: true` fills an experiment's own keys from its descriptor's smoke values, where the
    configuration (file or command line) leaves them out; without it they keep their defaults."""
    from analysis.experiments import all_experiments
    from analysis.plan import settings

    small = {k: v for e in all_experiments() for k, v in e.smoke.items()}
    assert small["cmix_reps"] == 2 and small["veccom_n"] == [16, 64]
    cfg = {"smoke": "true", "cmix_reps": "3"}  # as --config hands them over
    settings.check(cfg)
    assert cfg["cmix_reps"] == 3 and cfg["veccom_n"] == [16, 64] and cfg["cpsnark_samples"] == 10
    plain: dict[str, object] = {}
    settings.check(plain)
    assert plain["smoke"] is False and plain["cmix_reps"] == 5 and plain["veccom_n"] == [100, 1000]


def test_experiments_all_means_every_folder() -> None:
    from analysis.experiments import names
    from analysis.plan import settings

    for given in ("all", ["all"]):
        cfg = {"experiments": given}
        settings.check(cfg)
        assert cfg["experiments"] == list(names())


def test_every_key_can_be_set_from_the_command_line() -> None:
    """Snakemake's --config needs keys of at least two characters."""
    schema = yaml.safe_load((REPO / "config/schema.yaml").read_text())
    assert all(len(k) >= 2 for k in schema["properties"])


def test_command_line_numbers_become_numbers(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake(
        "--dry-run",
        "--printshellcmds",
        "--cores",
        "1",
        "raw",
        "--config",
        "experiments=[db-sm-rsm]",
        "threads=[1,2]",
        "sweep_entries=[100]",
    )
    assert "db-sm-rsm 100 4 --curve bn254 --mode fast --security 128 --threads 2" in proc.stdout


def test_every_seed_is_a_64_hex_digit_digest_of_the_configured_seed() -> None:
    """Any integer or text seeds a run; every program gets SHA-256 of it and the repetition, so a
    seed of any size fits every program's 256-bit --seed and repetitions differ."""
    import hashlib

    from analysis.experiments import run_seed

    assert run_seed({"seed": None}, 1) is None
    for seed in (0, 2**256, "artifact evaluation"):
        first, second = run_seed({"seed": seed}, 1), run_seed({"seed": seed}, 2)
        assert first == hashlib.sha256(f"tmbench-seed/{seed}/1".encode()).hexdigest()
        assert first is not None and len(first) == 64 and first != second


def test_transports_and_networks_reach_both_distributed_provers(workflow_copy: Workflow) -> None:
    """db-sm-rsm runs in one process and over TLS on each network; the collaborative prover on
    each network too; the defaults leave the ids of one-process, loopback runs as they were."""
    proc = workflow_copy.snakemake(
        "--dry-run", "--printshellcmds", "--cores", "1", "raw", "--config",
        "experiments=[db-sm-rsm,collab-groth16]", "entries=16", "dbsm_transport=[local,tls]",
        "networks=[none,lan]", "statements=[sm]", "zksnark_circuits=[optimized]",
    )  # fmt: skip
    out = proc.stdout
    assert "raw/db-sm-rsm/n16-m4-bn254-fast-s128-t1/" in out
    assert "raw/db-sm-rsm/n16-m4-bn254-fast-s128-t1-tls/" in out
    assert "--transport tls --network lan" in out and "n16-m4-bn254-fast-s128-t1-tls-lan/" in out
    assert "n16-m4-bn254-fast-s128-t1-tls-lan/board.log" in out and "--board-record" in out
    assert "raw/collab-groth16/sm-optimized-n16-t1/" in out
    assert "raw/collab-groth16/sm-optimized-n16-t1-lan/" in out and "--network lan" in out


def test_emulated_networks_are_refused_in_containers() -> None:
    import pytest

    from analysis.plan.settings import SettingsError, check

    cfg = {"networks": ["none", "wan"], "runner": "podman", "dbsm_transport": ["tls"],
           "experiments": ["db-sm-rsm"]}  # fmt: skip
    with pytest.raises(SettingsError, match=r"config key 'networks': db-sm-rsm --transport tls runs"):
        check(cfg)
    check({"networks": ["wan"], "runner": "podman", "experiments": ["db-sm-rsm"]})  # no tls: no network


def test_readme_table_of_shared_keys_is_the_schemas() -> None:
    """The README's table of the shared keys is what `python -m analysis keys --shared` prints."""
    from analysis.plan.settings import keys_table

    readme = (REPO / "README.md").read_text()
    start = readme.index("checks it -->\n") + len("checks it -->\n")
    end = readme.index("<!-- end of shared keys -->")
    assert readme[start:end] == keys_table(shared=True), (
        "run `python -m analysis keys --shared` into the README"
    )
