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
        # cargo bench checks target/ before it starts: no other cargo job at the same time (a
        # cluster profile limits cargo=1 jobs to one at a time, as for the builds)
        cargo=1,
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
        "python3 experiments/db-sm-rsm/compare_modes.py --binary {input.binary} --n 1000"
        " --m {params.mixers} --threads 1 --scaling 2 --calibration {input.calibration}"
        " --json {output.json} --raw-dir {params.raw} > {output.txt} 2> >(tee {log} >&2)"


# ---- capacity: each section's parallel fraction, and a sweep of n ------------------------------
#   snakemake --cores 2 dbsm_parallel   # pairs at 1 and 2 threads (n = 200: about 10 minutes)
#   snakemake --cores 2 dbsm_scale      # n = 10^3, 10^4, 5 x 10^4 at 2 threads, then a refit (hours)
# Both write experiments/db-sm-rsm/costs.yaml and the reference in analysis/data/costs.yaml
# (review with git diff) and a summary beside their runs. Each
# benchmark is a results directory of its own, laid out as results/ is (config.json, estimates.json,
# raw/db-sm-rsm/<run>/), so `python -m analysis costs` and `capacity --results` read it as any.

from analysis.experiments.db_sm_rsm import descriptor as dbsm_descriptor

DB_COSTS = "analysis/data/costs.yaml"
DB_BENCH = dbsm_descriptor.Benchmarks(DB_PERF, config)


rule dbsm_bench_config:
    """A db-sm-rsm benchmark's configuration, runs and commit (config.json), and each run's estimate
    with the speed probe behind it (estimates.json), as the workflow records them for results/."""
    output:
        f"{DB_PERF}/{{bench}}/config.json",
    log:
        f"{DB_PERF}/{{bench}}/config.log",
    wildcard_constraints:
        bench="|".join(re.escape(b) for b in DB_BENCH.configs),
    params:
        text=lambda wc: DB_BENCH.config_json(wc.bench, PROVENANCE),
        estimates=lambda wc: [COST_MODEL.estimate(r) for r in DB_BENCH.runs[wc.bench]],
    resources:
        mem_mb=100,
        runtime=5,
    run:
        plan_estimate.record_planned(Path(output[0]).parent, params.estimates, COST_MODEL.probe_s)
        write_atomically(output[0], params.text, log[0])


rule dbsm_bench_run:
    """One db-sm-rsm run of a benchmark outside `all` (dbsm_parallel, dbsm_scale), made after the
    run before it in the benchmark's order, so a pair's 1- and 2-thread runs alternate."""
    input:
        unpack(lambda wc: DB_BENCH.inputs(wc.bench, wc.run)),
    output:
        f"{DB_PERF}/{{bench}}/raw/db-sm-rsm/{{run}}/report.json",
    log:
        f"{DB_PERF}/{{bench}}/raw/db-sm-rsm/{{run}}/stderr.log",
    benchmark:
        f"{DB_PERF}/{{bench}}/raw/db-sm-rsm/{{run}}/benchmark.tsv"
    wildcard_constraints:
        bench="|".join(re.escape(b) for b in DB_BENCH.configs),
        run=dbsm_descriptor.SCHEME.pattern,
    params:
        command=lambda wc: shlex.join(DB_BENCH.command(wc.bench, wc.run)),
        text=lambda wc, output: os.path.join(os.path.dirname(output[0]), "report.txt"),
    threads: whole_machine
    resources:
        mem_mb=lambda wc: COST_MODEL.estimate(DB_BENCH.run(wc.bench, wc.run)[0]).mem_mb,
        # attempt k gets k times the time: a retry of a run killed at its limit resumes from its
        # checkpoint with more time (profiles/slurm's retries)
        runtime=lambda wc, attempt: attempt * COST_MODEL.estimate(DB_BENCH.run(wc.bench, wc.run)[0]).runtime_min,
    conda:
        SOFTWARE
    shell:
        "{params.command} > {params.text} 2> >(tee {log} >&2)"


rule dbsm_parallel:
    """Each db-sm-rsm section's parallel fraction from pairs of runs at 1 and 2 threads (Amdahl's
    law), written into costs.yaml's parallel block with the machine, date and load; the table of
    fractions in the summary beside the runs."""
    input:
        DB_BENCH.reports(DB_BENCH.parallel),
        config=f"{DB_BENCH.dir(DB_BENCH.parallel)}/config.json",
    output:
        f"{DB_BENCH.dir(DB_BENCH.parallel)}.txt",
    log:
        f"{DB_BENCH.dir(DB_BENCH.parallel)}.log",
    params:
        runs=lambda wc, input: os.path.dirname(input.config),
        costs=DB_COSTS,
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        SOFTWARE
    shell:
        "python3 -m analysis costs --parallel {params.runs} --in-place"
        " 2> >(tee {log} >&2) | tee {output}.tmp && mv {output}.tmp {output}"


rule dbsm_scale:
    """The time and memory model refitted from a sweep of n at 2 threads, with each section's
    parallel fraction from dbsm_parallel's pairs and its CPU share from the sweep's largest run,
    written into costs.yaml; then the capacity table and the refitted model's error on the sweep."""
    input:
        DB_BENCH.reports(DB_BENCH.scale),
        DB_BENCH.reports(DB_BENCH.parallel),
        config=f"{DB_BENCH.dir(DB_BENCH.scale)}/config.json",
        pairs=f"{DB_BENCH.dir(DB_BENCH.parallel)}/config.json",
    output:
        f"{DB_BENCH.dir(DB_BENCH.scale)}.txt",
    log:
        f"{DB_BENCH.dir(DB_BENCH.scale)}.log",
    params:
        runs=lambda wc, input: os.path.dirname(input.config),
        pairs=lambda wc, input: os.path.dirname(input.pairs),
        costs=DB_COSTS,
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        SOFTWARE
    shell:
        "(python3 -m analysis costs {params.runs} --parallel {params.pairs} --shares-from {params.runs}"
        " --in-place && python3 -m analysis capacity --results {params.runs})"
        " 2> >(tee {log} >&2) | tee {output}.tmp && mv {output}.tmp {output}"
