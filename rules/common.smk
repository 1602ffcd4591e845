# What every module of the workflow shares: the checked configuration, the planned runs, their
# estimates and resources, the programs and the provenance of the code. Functions only (the rules
# are in build.smk, measure.smk, images.smk and analysis.smk); what each experiment is comes from
# its descriptor (analysis/experiments/), and the logic lives in analysis/plan/, where it is
# tested and where the analysis reads the same run names. No experiment is named here.

import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

from analysis import experiments as descriptors
from analysis.plan import containers as plan_containers
from analysis.plan import estimate as plan_estimate
from analysis.plan import provenance as plan_provenance
from analysis.plan import settings as plan_settings
from analysis.plan import upstream as plan_upstream
from analysis.runs import max_threads

# The software of every rule, for `--software-deployment-method conda` (from the workflow's
# directory, so that a rule file of an experiment's folder finds it too). Without that option the
# rules use what scripts/install put on the machine.
SOFTWARE = os.path.join(workflow.basedir, "envs", "suite.yaml")


def say(text):
    """A message for the user on the terminal (Snakemake's own output goes there too)."""
    print(text, file=sys.stderr, flush=True)


def stop(text):
    """Stop before any job starts, with the problem in plain lines (no traceback, no location)."""
    say(f"error: {text}")
    sys.exit(1)


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


def require_tools(selected, runner):
    """Stop early when a program the selected experiments need is not installed, or when the
    configured container engine cannot run here (one line naming what failed)."""
    for name in selected:
        missing = [t for t in descriptors.get(name).tools if shutil.which(t) is None]
        if missing:
            raise WorkflowError(
                f"required program(s) not found on PATH: {', '.join(missing)} "
                f"(needed for experiment {name}); run scripts/install first"
            )
    if runner != "native" and workflow.is_main_process:
        problem = plan_containers.engine_problem(runner)
        if problem:
            stop(problem)


def provenance():
    """The commit of the code that makes these results, also handed to every job."""
    prov = plan_provenance.provenance(workflow.basedir)
    plan_provenance.export(prov)
    return prov


def upstream_left_out(config, selected):
    """The selected experiments whose pinned sources (the paper's own code, upstream/sources.yaml)
    cannot be had here, each with why and how to add them: they plan no run."""
    out = {}
    for name in selected:
        why = plan_upstream.unavailable(config, descriptors.get(name).upstream)
        if why:
            out[name] = why
    return out


def plan_and_estimate(config, leave_out=()):
    """Every run of this configuration (none of the experiments in `leave_out`), its estimate on
    this machine (printed once) and the speed probe the estimates are scaled by."""
    planned = descriptors.plan(config, leave_out)
    model = plan_estimate.CostModel.load()
    estimates = {}
    try:
        for runs in planned.values():
            for run in runs:
                estimates[run.dir] = model.estimate(run)
    except ValueError as e:  # a malformed costs.yaml: one line naming it
        raise WorkflowError(str(e)) from None
    limit_gib = config["memory_limit_gib"]
    limit_mb = limit_gib * 1024 if limit_gib is not None else plan_estimate.machine_memory_mb()
    if workflow.is_main_process:
        big = plan_estimate.too_big(list(estimates.values()), limit_mb)
        if big:
            worst = max(big, key=lambda e: e.memory_mb)
            raise WorkflowError(
                f"{len(big)} job(s) would need more memory than the limit of "
                f"{limit_mb / 1024:.1f} GiB, e.g. {worst.run.dir} about "
                f"{worst.memory_mb / 1024:.1f} GiB: lower 'entries' (or 'sweep_entries', "
                "'mixers'), or raise 'memory_limit_gib' if this machine can swap"
            )
    return planned, estimates, model, limit_mb


def run_of(experiment, run_id):
    """The planned run behind a job's wildcards."""
    try:
        return ESTIMATES[f"{experiment}/{run_id}"].run
    except KeyError:
        raise WorkflowError(
            f"{experiment}/{run_id} is not a run of this configuration"
        ) from None


def local_cores():
    """The cores Snakemake was given (commands that run no job, like --report, give none)."""
    try:
        return workflow.cores
    except Exception:  # Snakemake's "requires a total number of cores" (its own error class)
        return 1


def measuring_threads(wildcards):
    """Locally a measuring job claims every core, so no two measurements overlap; on a cluster
    it asks for the threads it runs with (the profile gives it a node of its own). A run that
    measures several thread counts ("1_2") needs its largest."""
    if workflow.local_exec:
        return local_cores()
    return max_threads(run_of(wildcards.experiment, wildcards.run))


def whole_machine(wildcards):
    """Threads of a job that must not share the machine when run locally (builds, calibration):
    every core. On a cluster an ordinary one-CPU job. A function, so that Snakemake asks it once
    the executor is known: at parse time every run looks local, and the cores of a cluster run
    (no --cores) are not a node's, which made SLURM refuse the job's step ("more processors
    requested than permitted")."""
    return local_cores() if workflow.local_exec else 1


def estimate_of(wildcards):
    return ESTIMATES[f"{wildcards.experiment}/{wildcards.run}"]


def measure_runtime(wildcards, attempt):
    """A measuring job's time limit in minutes (what SLURM gets as -t): its estimate's allowance
    (or `cluster_runtime_min`) for the first attempt, k times that for attempt k. A job that ran
    past its limit is resubmitted by the profile's retries with more time, and a run that keeps
    a checkpoint resumes from the one the killed attempt left in its run directory."""
    first = config["cluster_runtime_min"] or estimate_of(wildcards).runtime_min
    return first * attempt


def cluster_of(wildcards):
    """What a measuring job asks of SLURM beyond one node (its descriptor's `cluster`: nodes, tasks,
    mpi), or nothing."""
    return descriptors.get(wildcards.experiment).cluster(run_of(wildcards.experiment, wildcards.run))


def run_dirs(name):
    return [f"{RESULTS}/raw/{run.dir}" for run in PLANNED.get(name, [])]


def reads_of(experiment, run_id):
    """The files of other experiments' runs that a run reads, by name (paths under RESULTS)."""
    run = run_of(experiment, run_id)
    return {k: f"{RESULTS}/raw/{v}" for k, v in descriptors.get(experiment).reads(run).items()}


def measure_inputs(wildcards):
    """What a measuring job needs: its programs (natively) or its image (in a container), and
    the files of other runs it reads."""
    exp = descriptors.get(wildcards.experiment)
    inputs = reads_of(wildcards.experiment, wildcards.run)
    # Runs made in a given order (pairs alternated): the run before, as an order only.
    before = PREDECESSORS.get(f"{wildcards.experiment}/{wildcards.run}")
    if before is not None:
        inputs["made_after"] = ancient(f"{RESULTS}/raw/{before}/report.json")
    # The builds of the paper's own code the run needs (rules/upstream.smk), as an order only:
    # a build is keyed by its sources and recipe, so a new one is a new file.
    for i, part in enumerate(exp.upstream):
        inputs[f"upstream{i}"] = ancient(UPSTREAM_STAMPS[part])
    if RUNNER == "native":
        for i, prog in enumerate(exp.programs):
            inputs[f"program{i}"] = prog.path
        for i, pkg in enumerate(exp.node_packages):
            inputs[f"node{i}"] = node_stamp(pkg)
    else:
        inputs["image"] = image_id_file(exp.name)
    return inputs


def measure_command(wildcards, input):
    """The whole shell command of a measuring job: its command line (natively or inside its
    image), its standard output to a file of its run directory, its standard error to the
    terminal and stderr.log, and a report kept when the program exits non-zero after writing it
    (a run whose proof failed: the PDF flags it and the `verify` rule fails the run)."""
    exp = descriptors.get(wildcards.experiment)
    run = run_of(wildcards.experiment, wildcards.run)
    run_dir = f"{RESULTS}/raw/{run.dir}"
    job = descriptors.Job(
        out=f"{run_dir}/report.json",
        dir=run_dir,
        seed=descriptors.run_seed(config, run.rep),
        results=RESULTS,
        inputs=reads_of(exp.name, wildcards.run),
    )
    argv = exp.command(run, job)
    if RUNNER != "native":
        image, ident = Path(input.image).read_text(encoding="utf-8").split()
        argv = plan_containers.run_prefix(RUNNER, image, ident, RESULTS) + argv
    stdout = f"{run_dir}/{exp.stdout}" if exp.stdout else f"{run_dir}/stdout.log"
    log = f"{run_dir}/stderr.log"
    name = exp.programs[0].name if exp.programs else exp.name
    # A run that stopped half way (a process or a node lost) keeps its checkpoint for the next
    # attempt: its report is no result, and the job fails, so that the profile's retries (or the
    # same command again) resume it.
    resumable = exp.checkpoint
    stopped = (
        f" test ! -e {shlex.quote(resumable(job))} || {{ echo \"{name} stopped half way; its"
        f" checkpoint {resumable(job)} is kept for the next attempt\" >&2; exit $rc; }};"
        if resumable
        else ""
    )
    return (
        f"{shlex.join(argv)} > {shlex.quote(stdout)} 2> >(tee {shlex.quote(log)} >&2)"
        f" || {{ rc=$?; echo \"{name} exited with status $rc; see {log}\" >&2;{stopped}"
        f" test -s {shlex.quote(job.out)} || exit $rc; }}"
    )


def node_stamp(package_dir):
    return f"{package_dir}/node_modules/.package-lock.json"


def image_id_file(name):
    return f"{RESULTS}/images/{name}.id"


def image_inputs(wildcards):
    """What an image is built from: the base, the Containerfile, and the programs (and Node
    packages) of its experiment, or the analysis's sources."""
    inputs = {"base": image_id_file("base")}
    if wildcards.name == plan_containers.ANALYSIS:
        inputs["containerfile"] = "containers/analysis/Containerfile"
        inputs["sources"] = ANALYSIS_SOURCES
        return inputs
    exp = descriptors.get(wildcards.name)
    inputs["containerfile"] = "containers/program/Containerfile"
    inputs["programs"] = [p.path for p in exp.programs]
    inputs["node"] = [node_stamp(p) for p in exp.node_packages]
    inputs["paths"] = [f for rel in exp.image.paths for f in (sources(f"{rel}/**") if os.path.isdir(rel) else [rel])]
    # The builds of the paper's own code it holds (rules/upstream.smk), by their records.
    inputs["upstream"] = [UPSTREAM_STAMPS[p] for p in exp.upstream if p in UPSTREAM_STAMPS]
    return inputs


def analysis_inputs(wildcards):
    """The analysis image (with a container runner) or the analysis's sources (natively)."""
    if RUNNER == "native":
        return {"sources": ANALYSIS_SOURCES}
    return {"image": image_id_file(plan_containers.ANALYSIS)}


def analysis_command(wildcards, input):
    """`python3 -m analysis`, natively or inside the analysis image."""
    if RUNNER == "native":
        return "python3 -m analysis"
    image, ident = Path(input.image).read_text(encoding="utf-8").split()
    return shlex.join([*plan_containers.run_prefix(RUNNER, image, ident, RESULTS), "python3", "-m", "analysis"])


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


def path_dependencies(crate):
    """The crate directories `crate` builds on through path dependencies (its own, and those of
    the workspace's table it takes with `workspace = true`), transitively, itself included."""
    import tomllib

    with open("Cargo.toml", "rb") as f:
        shared = tomllib.load(f).get("workspace", {}).get("dependencies", {})
    seen, todo = set(), [os.path.normpath(crate)]
    while todo:
        d = todo.pop()
        if d in seen or not os.path.isfile(os.path.join(d, "Cargo.toml")):
            continue
        seen.add(d)
        with open(os.path.join(d, "Cargo.toml"), "rb") as f:
            manifest = tomllib.load(f)
        for table in ("dependencies", "build-dependencies"):
            for name, dep in manifest.get(table, {}).items():
                if isinstance(dep, dict) and "path" in dep:
                    todo.append(os.path.normpath(os.path.join(d, dep["path"])))
                elif isinstance(dep, dict) and dep.get("workspace") and "path" in shared.get(name, {}):
                    todo.append(os.path.normpath(shared[name]["path"]))
    return sorted(seen)


def crate_sources(*crates):
    """What a crate's build depends on: its own files, those of every crate it builds on by a
    path dependency, and the workspace's manifest and lock."""
    files = ["Cargo.toml", "Cargo.lock"]
    for crate in {d for c in crates for d in path_dependencies(c)}:
        files += sources(f"{crate}/**/*.rs", f"{crate}/Cargo.toml")
    return sorted(set(files))


def run_config_text():
    """results/config.json: the configuration, the runs it makes and the code's commit."""
    return json.dumps(
        {
            "config": dict(config),
            "runs": {e: [r.id for r in runs] for e, runs in PLANNED.items()},
            "left_out": LEFT_OUT,
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


def jobs_to_run():
    """The runs this invocation will measure, from Snakemake's DAG once it is built (None where
    this version of Snakemake does not expose it)."""
    try:
        jobs = [j for j in workflow.dag.needrun_jobs() if j.rule.name == "measure"]
    except Exception:  # the DAG's interface is Snakemake's own and may change
        return None
    return {f"{j.wildcards.experiment}/{j.wildcards.run}" for j in jobs}


def estimate_table(running):
    """The estimates of the runs in `running` (all if None); the others are reused."""
    chosen = [e for d, e in ESTIMATES.items() if running is None or d in running]
    return chosen, plan_estimate.table(chosen, COST_MODEL, LIMIT_MB, reused=len(ESTIMATES) - len(chosen))


def announce_dry_run():
    """A dry run prints the estimates of the runs without a report (Snakemake calls no hook in
    a dry run); a real run prints them when its jobs start (announce_and_record)."""
    dry = getattr(workflow.output_settings, "dryrun", False)
    if workflow.is_main_process and dry:
        missing = {d for d in ESTIMATES if not os.path.exists(f"{RESULTS}/raw/{d}/report.json")}
        say(estimate_table(missing)[1])


def announce_and_record(results):
    """When jobs start (not in a dry run): the estimate table of the measuring jobs that will
    run (runs reused from earlier invocations are counted, not listed), and
    RESULTS/estimates.json, the estimate of every run about to be measured as printed, for
    `python -m analysis estimates` to compare with."""
    prepare_cluster()
    chosen, text = estimate_table(jobs_to_run())
    say(text)
    plan_estimate.record_planned(Path(results), chosen, COST_MODEL.probe_s)


def print_summary(results, failed):
    """At the end of a run: the analysis's summary (claims, statuses, the PDF's path); after a
    failure, also every failed job and its log."""
    path = os.path.join(results, "summary.txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            say(f"\n{f.read().rstrip()}")
    if failed:
        say(failed_jobs_text(results))


def failed_jobs_text(results):
    """The failed jobs of this invocation and their logs (from Snakemake's scheduler), or, where
    it does not say, the planned runs without a report."""
    lines = ["", "==== failed jobs ===="]
    try:
        failed = sorted(workflow.scheduler.failed, key=str)
    except Exception:  # the scheduler's interface is Snakemake's own and may change
        failed = []
    for j in failed:
        logs = ", ".join(str(p) for p in j.log) or "no log"
        where = " ".join(f"{k}={v}" for k, v in j.wildcards.items())
        lines.append(f"{j.rule.name} {where}: see {logs}".replace("  ", " "))
    if not failed:
        for d in ESTIMATES:
            run_dir = f"{results}/raw/{d}"
            if not os.path.exists(f"{run_dir}/report.json"):
                lines.append(f"{d}: no report; see {run_dir}/stderr.log")
    lines.append("Snakemake's own log of this invocation: .snakemake/log/ (newest file).")
    return "\n".join(lines)
