# Experiment 1 of the paper: the distributed set-membership proofs DB-SM and DB-RSM within a mixnet
# of m mix-servers. One job per (n, m, curve, mode, security, threads, repetition); n is swept at
# the configured m, and m at the configured n (analysis/plan/runs.py).

DB_RAW = f"{RESULTS}/raw/db-sm-rsm"
DB_SCHEME = plan_runs.SCHEMES["db-sm-rsm"]
RAW_OUTPUTS += [
    f"{d}/{f}" for d in run_dirs("db-sm-rsm") for f in ("report.txt", "report.json")
]


rule dbsmrsm_run:
    """One run of the mixnet with DB-SM and DB-RSM: every party's time per step, statuses and
    sizes (report.txt in the paper's format, report.json with CPU times and counted
    operations)."""
    input:
        DBSM_BIN,
    output:
        txt=f"{DB_RAW}/{{run}}/report.txt",
        json=f"{DB_RAW}/{{run}}/report.json",
    log:
        f"{DB_RAW}/{{run}}/stderr.log",
    benchmark:
        f"{DB_RAW}/{{run}}/benchmark.tsv"
    wildcard_constraints:
        run=DB_SCHEME.pattern,
    params:
        args=lambda wc: (
            "{n} {m} --curve {curve} --mode {mode} --threads {threads}"
        ).format(**run_of("db-sm-rsm", wc.run).params)
        + seed_arg(run_of("db-sm-rsm", wc.run)),
    threads: measuring_threads("db-sm-rsm")
    resources:
        **job_resources("db-sm-rsm"),
    # A status False exits non-zero but leaves complete reports: keep them for the PDF to flag
    # (the `verify` rule fails the run after the PDF is written).
    shell:
        "{input} {params.args} --json {output.json}"
        " > {output.txt} 2> >(tee {log} >&2)"
        " || {{ rc=$?; echo \"db-sm-rsm exited with status $rc; see {log}\" >&2;"
        " test -s {output.json} || exit $rc; }}"


# The performance benchmark of db-sm-rsm, outside `all` (about 40 minutes on 2 cores):
#   snakemake --cores 2 dbsm_perf
# Paper mode against fast mode at n = 1000 and the configured m, one thread, with fast mode's
# computed lower bound and its speed-up on two threads, from a fresh single-core calibration.

DB_PERF = f"{RESULTS}/perf/db-sm-rsm"


rule dbsm_calibration:
    """Unit costs of db-sm-rsm's operations on this machine (cargo bench, one thread)."""
    input:
        DBSM_BIN,
    output:
        f"{DB_PERF}/calibration.json",
    log:
        f"{DB_PERF}/calibration.log",
    threads: whole_machine()
    resources:
        mem_mb=2000,
        runtime=60,
    shell:
        "RAYON_NUM_THREADS=1 DBSM_CALIBRATION=$PWD/{output}"
        " cargo bench -p db-sm-rsm --bench ops > {log} 2>&1"


rule dbsm_perf:
    """Paper vs fast mode, fast over its lower bound, and the 2-thread speed-up."""
    input:
        binary=DBSM_BIN,
        calibration=rules.dbsm_calibration.output,
    output:
        txt=f"{DB_PERF}/compare-n1000-m{config['mixers']}.txt",
        json=f"{DB_PERF}/compare-n1000-m{config['mixers']}.json",
    log:
        f"{DB_PERF}/compare-n1000-m{config['mixers']}.log",
    params:
        raw=f"{DB_PERF}/raw-n1000-m{config['mixers']}",
        mixers=config["mixers"],
    threads: whole_machine()
    resources:
        mem_mb=4000,
        runtime=180,
    shell:
        "python3 scripts/dbsm_compare_modes.py --binary {input.binary} --n 1000"
        " --m {params.mixers} --threads 1 --scaling 2 --calibration {input.calibration}"
        " --json {output.json} --raw-dir {params.raw} > {output.txt} 2> >(tee {log} >&2)"
