# What every module of the workflow shares: the checked configuration, the planned runs, their
# estimates and resources, the built programs' paths and the provenance of the code. Functions
# only (the rules are in the experiment modules); the logic lives in analysis/plan/, where it is
# tested and where the analysis reads the same run names.

import json
import os
import shutil
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

from analysis.plan import estimate as plan_estimate
from analysis.plan import provenance as plan_provenance
from analysis.plan import runs as plan_runs
from analysis.plan import settings as plan_settings

# The software of every rule, for `--software-deployment-method conda` (relative to the modules
# in experiments/). Without that option the rules use what scripts/install put on the machine.
SOFTWARE = "../envs/suite.yaml"


def say(text):
    """A message for the user on the terminal (Snakemake's own output goes there too)."""
    print(text, file=sys.stderr, flush=True)


def checked_config(config, defaults_file):
    """The configuration (the defaults file under the command line's values) validated and
    completed, or a WorkflowError of one line per bad key."""
    try:
        merged = plan_settings.load_file(os.path.join(workflow.basedir, defaults_file))
        merged.update(config)
        config.clear()
        config.update(merged)
        warnings = plan_settings.check(config)
    except plan_settings.SettingsError as e:
        raise WorkflowError(str(e)) from None
    if workflow.is_main_process:
        for w in warnings:
            say(f"warning: {w}")
    return config


def check_environment():
    """The programs run from ./target/release: a CARGO_TARGET_DIR elsewhere would hide them."""
    problem = plan_settings.environment_problem()
    if problem:
        raise WorkflowError(problem)


def require_tools(experiments):
    """Stop early when a program the selected experiments need is not installed."""
    needs = {"zksnark-sm-rsm": ["cargo", "node", "npm"]}
    for experiment in experiments:
        missing = [t for t in needs.get(experiment, ["cargo"]) if shutil.which(t) is None]
        if missing:
            raise WorkflowError(
                f"required program(s) not found on PATH: {', '.join(missing)} "
                f"(needed for experiment {experiment}); run scripts/install first"
            )


def provenance():
    """The commit of the code that makes these results, also handed to every job."""
    prov = plan_provenance.provenance(workflow.basedir)
    plan_provenance.export(prov)
    return prov


def plan_and_estimate(config):
    """Every run of this configuration, its estimate on this machine (printed once) and the speed
    probe the estimates are scaled by."""
    planned = plan_runs.plan(config)
    model = plan_estimate.CostModel.load()
    estimates = {}
    for experiment, runs in planned.items():
        for run in runs:
            estimates[run.dir] = model.estimate(run)
    limit_gib = config["memory_limit_gib"]
    limit_mb = limit_gib * 1024 if limit_gib is not None else plan_estimate.machine_memory_mb()
    if workflow.is_main_process:
        say(plan_estimate.table(list(estimates.values()), model, limit_mb))
        big = plan_estimate.too_big(list(estimates.values()), limit_mb)
        if big:
            worst = max(big, key=lambda e: e.memory_mb)
            raise WorkflowError(
                f"{len(big)} job(s) would need more memory than the limit of "
                f"{limit_mb / 1024:.1f} GiB, e.g. {worst.run.dir} about "
                f"{worst.memory_mb / 1024:.1f} GiB: lower 'entries' (or 'sweep_entries', "
                "'mixers'), or raise 'memory_limit_gib' if this machine can swap"
            )
    return planned, estimates, model.probe_s


def run_of(experiment, run_id):
    """The planned run behind a job's wildcard."""
    return ESTIMATES[f"{experiment}/{run_id}"].run


def local_cores():
    """The cores Snakemake was given (commands that run no job, like --report, give none)."""
    try:
        return workflow.cores
    except Exception:  # Snakemake's "requires a total number of cores" (its own error class)
        return 1


def measuring_threads(experiment):
    """Locally a measuring job claims every core, so no two measurements overlap; on a cluster
    it asks for the threads it runs with (the profile gives it a node of its own)."""
    if workflow.local_exec:
        return local_cores()
    # A run that measures several thread counts ("1_2") needs its largest.
    return lambda wildcards: max(
        int(t) for t in str(run_of(experiment, wildcards.run).params["threads"]).split("_")
    )


def whole_machine():
    """Threads of a job that must not share the machine when run locally (builds, calibration):
    every core. On a cluster a job gets a node of its own (or a fair share) by its resources."""
    return local_cores() if workflow.local_exec else 2


def job_resources(experiment):
    """mem_mb and runtime (minutes) of a measuring job, from its estimate."""
    return {
        "mem_mb": lambda wildcards: ESTIMATES[f"{experiment}/{wildcards.run}"].mem_mb,
        "runtime": lambda wildcards: ESTIMATES[f"{experiment}/{wildcards.run}"].runtime_min,
    }


def run_dirs(experiment):
    return [f"{RESULTS}/raw/{run.dir}" for run in PLANNED.get(experiment, [])]


def seed_arg(run):
    seed = plan_runs.seed_of(config, run.rep)
    return "" if seed is None else f" --seed {seed}"


def zksnark_args(run, out_dir):
    """The zkSNARK driver's options for a planned run."""
    p, e = run.params, run.extra
    args = (
        f"--statement {p['statement']} --n {p['n']} --hash {p['hash']} --threads {p['threads']}"
        f" --out {out_dir}{seed_arg(run)} --provers {','.join(e['provers'])}"
        f" --circuits {','.join(e['circuits'])}"
    )
    return args + (" --keep-build" if e["keep_build"] else "")


def collab_args(run, zksnark_report):
    """collab-groth16's options: the zkSNARK run's circuit and witness, parties, variants."""
    build = os.path.join(os.path.dirname(zksnark_report), "build")
    stem = "circuit" if run.params["circuit"] == "zokrates" else "optimized"
    witness = "witness" if run.params["circuit"] == "zokrates" else "optimized"
    e = run.extra
    return (
        f"--r1cs {build}/{stem}.r1cs --wtns {build}/{witness}.wtns"
        f" --parties {','.join(map(str, e['parties']))} --variants {','.join(e['variants'])}"
        f" --threads {run.params['threads']}"
    )


def veccom_args(run):
    """veccom-bench's options for a planned run (the ablation with the one-thread run only)."""
    e = run.extra
    ablation = ",".join(map(str, e["pairing_n"])) if 1 in e["threads"] else "none"
    return (
        f"--schemes {','.join(e['schemes'])} --n {','.join(map(str, e['pairing_n']))}"
        f" --merkle-n {','.join(map(str, e['merkle_n']))}"
        f" --threads {','.join(map(str, e['threads']))} --ablation-n {ablation}"
    )


def cmix_args(run):
    """cmix-bench's options for a planned run (a configured seed as the 64 hex digits it takes)."""
    e = run.extra
    seed = plan_runs.seed_of(config, run.rep)
    return (
        f"--clients {run.params['clients']} --groups {','.join(e['groups'])}"
        f" --threads {','.join(map(str, e['threads']))} --reps {e['reps']}"
        + ("" if seed is None else f" --seed {seed:064x}")
    )


def mithril_args(run):
    """mithril-bench's options for a planned run: the prover on the largest thread count (a
    configured seed as the 64 hex digits it takes)."""
    e = run.extra
    seed = plan_runs.seed_of(config, run.rep)

    def listed(xs):
        return ",".join(map(str, xs)) or "none"

    return (
        f"--native-n {listed(e['native_n'])} --threads {listed(e['threads'])}"
        f" --circuit-n {listed(e['circuit_n'])} --size-n {listed(e['size_n'])}"
        f" --prover-threads {max(e['threads'])}"
        + ("" if seed is None else f" --seed {seed:064x}")
    )


def sources(*patterns, exclude=("node_modules", "target", "build", "tests", "test")):
    """Files matching the glob patterns, without build products or test files."""
    import glob

    found = set()
    for pattern in patterns:
        for path in glob.glob(pattern, recursive=True):
            parts = set(path.split(os.sep))
            if os.path.isfile(path) and not parts & set(exclude):
                found.add(path)
    return sorted(found)


def crate_sources(*crates):
    """What a crate's build depends on: its own files, the shared measure crate, and the
    workspace's manifest and lock."""
    files = ["Cargo.toml", "Cargo.lock"]
    for crate in (*crates, "measure"):
        files += sources(f"{crate}/**/*.rs", f"{crate}/Cargo.toml")
    return sorted(set(files))


def run_config_text():
    """results/config.json: the configuration, the runs it makes and the code's commit."""
    return json.dumps(
        {
            "config": dict(config),
            "runs": {e: [r.id for r in runs] for e, runs in PLANNED.items()},
            "provenance": PROVENANCE,
        },
        indent=2,
        sort_keys=True,
    )


def write_atomically(path, text, log):
    """Write text to path through a temporary file (no reader sees half of it); log it."""
    plan_estimate.write_text_atomically(Path(path), f"{text}\n")
    with open(log, "w", encoding="utf-8") as f:
        f.write(f"wrote {path}\n")


def record_estimates(results):
    """When jobs start (not in a dry run): RESULTS/estimates.json, the estimate of every run about
    to be measured as printed above, for `python -m analysis estimates` to compare with."""
    plan_estimate.record_planned(Path(results), list(ESTIMATES.values()), PLAN_PROBE)


def print_summary(results):
    """At the end of a run: the analysis's summary (claims, statuses, the PDF's path)."""
    path = os.path.join(results, "summary.txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            say(f"\n{f.read().rstrip()}")
