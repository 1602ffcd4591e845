# The performance benchmarks of db-sm-rsm, outside `all`:
#   snakemake --cores 2 dbsm_perf       # paper vs fast mode (about 40 minutes on 2 cores)
#   snakemake --cores 2 dbsm_parallel   # each section's parallel fraction (below)
#   snakemake --cores 2 dbsm_scale      # the cost model refitted from a sweep of n (below)
# Paper mode against fast mode at n = 1000 and the configured m, one thread, with fast mode's
# computed lower bound and its speed-up on two threads, from a fresh single-core calibration.

DB_PERF = f"{RESULTS}/perf/db-sm-rsm"


rule dbsm_calibration:
    """Unit costs of db-sm-rsm's operations on this machine (cargo bench, one thread)."""
    input:
        "target/release/db-sm-rsm",
    output:
        f"{DB_PERF}/calibration.json",
    log:
        f"{DB_PERF}/calibration.log",
    threads: whole_machine
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "RAYON_NUM_THREADS=1 DBSM_CALIBRATION=$PWD/{output}"
        " cargo bench -p db-sm-rsm --bench ops > {log} 2>&1"


rule dbsm_perf:
    """Paper vs fast mode, fast over its lower bound, and the 2-thread speed-up."""
    input:
        binary="target/release/db-sm-rsm",
        calibration=rules.dbsm_calibration.output,
    output:
        txt=f"{DB_PERF}/compare-n1000-m{config['mixers']}.txt",
        json=f"{DB_PERF}/compare-n1000-m{config['mixers']}.json",
    log:
        f"{DB_PERF}/compare-n1000-m{config['mixers']}.log",
    params:
        raw=f"{DB_PERF}/raw-n1000-m{config['mixers']}",
        mixers=config["mixers"],
    threads: whole_machine
    resources:
        mem_mb=4000,
        runtime=180,
    conda:
        SOFTWARE
    shell:
        "python3 scripts/dbsm_compare_modes.py --binary {input.binary} --n 1000"
        " --m {params.mixers} --threads 1 --scaling 2 --calibration {input.calibration}"
        " --json {output.json} --raw-dir {params.raw} > {output.txt} 2> >(tee {log} >&2)"


# ---- capacity: each section's parallel fraction, and a sweep of n ------------------------------
#   snakemake --cores 2 dbsm_parallel   # pairs at 1 and 2 threads (n = 200: about 10 minutes)
#   snakemake --cores 2 dbsm_scale      # n = 10^3, 10^4, 5 x 10^4 at 2 threads, then a refit (hours)
# Both write analysis/data/costs.yaml (review with git diff) and a summary beside their runs. Each
# benchmark is a results directory of its own, laid out as results/ is (config.json, estimates.json,
# raw/db-sm-rsm/<run>/), so `python -m analysis costs` and `capacity --results` read it as any.

from analysis.experiments import dbsm as dbsm_descriptor

DB_COSTS = "analysis/data/costs.yaml"
DB_PARALLEL = f"{DB_PERF}/parallel-n{config['dbsm_parallel_entries']}-m{config['mixers']}"
DB_SCALE = f"{DB_PERF}/scale-m{config['mixers']}-t2"
# Each benchmark's configuration and its runs, in the order they are made.
DB_BENCHES = {
    os.path.basename(DB_PARALLEL): dbsm_descriptor.parallel_config(config),
    os.path.basename(DB_SCALE): dbsm_descriptor.scale_config(config),
}
DB_BENCH_RUNS = {
    bench: dbsm_descriptor.benchmark_order(descriptors.plan(cfg)[dbsm_descriptor.SCHEME.experiment])
    for bench, cfg in DB_BENCHES.items()
}


def dbsm_bench_dir(bench):
    return f"{DB_PERF}/{bench}"


def dbsm_bench_report(bench, run):
    return f"{dbsm_bench_dir(bench)}/raw/{run.dir}/report.json"


def dbsm_bench_reports(bench):
    return [dbsm_bench_report(bench, run) for run in DB_BENCH_RUNS[bench]]


def dbsm_bench_run(wildcards):
    """The benchmark run behind a job's wildcards, and the one made before it (or None)."""
    runs = DB_BENCH_RUNS[wildcards.bench]
    for i, run in enumerate(runs):
        if run.id == wildcards.run:
            return run, runs[i - 1] if i else None
    raise WorkflowError(f"{wildcards.run} is not a run of the benchmark {wildcards.bench}")


def dbsm_bench_inputs(wildcards):
    """The program, the benchmark's config.json (and estimates.json), and the report of the run
    made before this one: the runs are made one after another in the benchmark's order."""
    run, before = dbsm_bench_run(wildcards)
    inputs = {"program": dbsm_descriptor.PROGRAM.path, "config": f"{dbsm_bench_dir(wildcards.bench)}/config.json"}
    if before is not None:
        inputs["before"] = dbsm_bench_report(wildcards.bench, before)
    return inputs


def dbsm_bench_command(wildcards):
    """The run's command line (the descriptor's), its key cache in its own directory: every run
    generates its keys from its seed, so the two runs of a pair do the same work."""
    run, _ = dbsm_bench_run(wildcards)
    run_dir = f"{dbsm_bench_dir(wildcards.bench)}/raw/{run.dir}"
    cfg = DB_BENCHES[wildcards.bench]
    job = descriptors.Job(out=f"{run_dir}/report.json", dir=run_dir,
                          seed=descriptors.run_seed(cfg, run.rep), results=run_dir)  # fmt: skip
    argv = dbsm_descriptor.command(run, job)
    return f"{shlex.join(argv)} > {shlex.quote(run_dir)}/report.txt 2> >(tee {shlex.quote(run_dir)}/stderr.log >&2)"


def dbsm_bench_estimate(wildcards):
    return COST_MODEL.estimate(dbsm_bench_run(wildcards)[0])


def dbsm_bench_config_text(wildcards):
    """config.json of a benchmark's results directory, as run_config writes results/config.json."""
    runs = DB_BENCH_RUNS[wildcards.bench]
    return json.dumps(
        {"config": DB_BENCHES[wildcards.bench], "runs": {dbsm_descriptor.SCHEME.experiment: [r.id for r in runs]},
         "provenance": PROVENANCE},
        indent=2, sort_keys=True,
    )  # fmt: skip


rule dbsm_bench_config:
    """A db-sm-rsm benchmark's configuration, runs and commit (config.json), and each run's estimate
    with the speed probe behind it (estimates.json), as the workflow records them for results/."""
    output:
        f"{DB_PERF}/{{bench}}/config.json",
    log:
        f"{DB_PERF}/{{bench}}/config.log",
    wildcard_constraints:
        bench="|".join(re.escape(b) for b in DB_BENCHES),
    params:
        text=dbsm_bench_config_text,
    resources:
        mem_mb=100,
        runtime=5,
    run:
        bench = os.path.dirname(output[0])
        runs = DB_BENCH_RUNS[wildcards.bench]
        plan_estimate.record_planned(Path(bench), [COST_MODEL.estimate(r) for r in runs], COST_MODEL.probe_s)
        write_atomically(output[0], params.text, log[0])


rule dbsm_bench_run:
    """One db-sm-rsm run of a benchmark outside `all` (dbsm_parallel, dbsm_scale), made after the
    run before it in the benchmark's order, so a pair's 1- and 2-thread runs alternate."""
    input:
        unpack(dbsm_bench_inputs),
    output:
        f"{DB_PERF}/{{bench}}/raw/db-sm-rsm/{{run}}/report.json",
    log:
        f"{DB_PERF}/{{bench}}/raw/db-sm-rsm/{{run}}/stderr.log",
    benchmark:
        f"{DB_PERF}/{{bench}}/raw/db-sm-rsm/{{run}}/benchmark.tsv"
    wildcard_constraints:
        bench="|".join(re.escape(b) for b in DB_BENCHES),
        run=dbsm_descriptor.SCHEME.pattern,
    params:
        command=dbsm_bench_command,
    threads: whole_machine
    resources:
        mem_mb=lambda wc: dbsm_bench_estimate(wc).mem_mb,
        runtime=lambda wc: dbsm_bench_estimate(wc).runtime_min,
    conda:
        SOFTWARE
    shell:
        "{params.command}"


rule dbsm_parallel:
    """Each db-sm-rsm section's parallel fraction from pairs of runs at 1 and 2 threads (Amdahl's
    law), written into costs.yaml's parallel block with the machine, date and load; the table of
    fractions in the summary beside the runs."""
    input:
        dbsm_bench_reports(os.path.basename(DB_PARALLEL)),
        config=f"{DB_PARALLEL}/config.json",
    output:
        f"{DB_PARALLEL}.txt",
    log:
        f"{DB_PARALLEL}.log",
    params:
        runs=DB_PARALLEL,
        costs=DB_COSTS,
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        SOFTWARE
    shell:
        "python3 -m analysis costs --parallel {params.runs} --out {params.costs}"
        " 2> >(tee {log} >&2) | tee {output}.tmp && mv {output}.tmp {output}"


rule dbsm_scale:
    """The time and memory model refitted from a sweep of n at 2 threads, with each section's
    parallel fraction from dbsm_parallel's pairs and its CPU share from the sweep's largest run,
    written into costs.yaml; then the capacity table and the refitted model's error on the sweep."""
    input:
        dbsm_bench_reports(os.path.basename(DB_SCALE)),
        dbsm_bench_reports(os.path.basename(DB_PARALLEL)),
        config=f"{DB_SCALE}/config.json",
        pairs=f"{DB_PARALLEL}/config.json",
    output:
        f"{DB_SCALE}.txt",
    log:
        f"{DB_SCALE}.log",
    params:
        runs=DB_SCALE,
        pairs=DB_PARALLEL,
        costs=DB_COSTS,
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        SOFTWARE
    shell:
        "(python3 -m analysis costs {params.runs} --parallel {params.pairs} --shares-from {params.runs}"
        " --out {params.costs} && python3 -m analysis capacity --results {params.runs})"
        " 2> >(tee {log} >&2) | tee {output}.tmp && mv {output}.tmp {output}"
