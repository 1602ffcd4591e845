# Experiment 1 of the paper: the distributed set-membership proofs DB-SM and DB-RSM within a mixnet
# of m mix-servers. One job per (n, m, curve, mode, threads, repetition). n is swept at the
# configured m, and m at the configured n (one parameter at a time, not the full grid, to keep
# the number of long runs down).

import re

DB_RAW = f"{RESULTS}/raw/db-sm-rsm"
DB_RUN = re.compile(r"n(\d+)-m(\d+)-(bn254|bls12-381)-(fast|paper)-t(\d+)(?:-r(\d+))?")


def dbsmrsm_points():
    points = {(n, config["m"]) for n in set_sizes()}
    points |= {(config["n"], m) for m in config["sweep_m"]}
    return sorted(points)


def dbsmrsm_run_ids():
    return [
        f"n{n}-m{m}-{curve}-{mode}-t{threads}{rep_suffix(rep)}"
        for n, m in dbsmrsm_points()
        for curve in config["curve"]
        for mode in config["mode"]
        for threads in config["threads"]
        for rep in reps()
    ]


def dbsmrsm_outputs():
    return [f"{DB_RAW}/{r}/{f}" for r in dbsmrsm_run_ids() for f in ("report.txt", "report.json")]


def dbsmrsm_args(wildcards):
    n, m, curve, mode, threads, rep = DB_RUN.fullmatch(wildcards.run).groups()
    return f"{n} {m} --curve {curve} --mode {mode} --threads {threads}{seed_arg(int(rep or 1))}"


rule dbsmrsm_run:
    input:
        tool_inputs([DBSM_BIN], "db-sm-rsm"),
    output:
        txt=f"{DB_RAW}/{{run}}/report.txt",
        json=f"{DB_RAW}/{{run}}/report.json",
    log:
        f"{DB_RAW}/{{run}}/stderr.log",
    wildcard_constraints:
        run=DB_RUN.pattern,
    params:
        prefix=runner_prefix("db-sm-rsm"),
        args=dbsmrsm_args,
    threads: workflow.cores
    # A status False exits non-zero but leaves complete reports: keep them for the PDF to flag.
    shell:
        "{params.prefix}" + DBSM_BIN + " {params.args} --json {output.json} > {output.txt} 2> {log}"
        " || {{ rc=$?; echo \"db-sm-rsm exited with status $rc; see {log}\" >&2;"
        " test -s {output.json} || exit $rc; }}"


# Issue 8's performance benchmark, outside `all` (about 40 minutes on 2 cores):
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
    threads: workflow.cores
    shell:
        "RAYON_NUM_THREADS=1 DBSM_CALIBRATION=$PWD/{output}"
        " cargo bench -p db-sm-rsm --bench ops > {log} 2>&1"


rule dbsm_perf:
    """Paper vs fast mode, fast over its lower bound, and the 2-thread speed-up."""
    input:
        binary=DBSM_BIN,
        calibration=rules.dbsm_calibration.output,
    output:
        txt=f"{DB_PERF}/compare-n1000-m{config['m']}.txt",
        json=f"{DB_PERF}/compare-n1000-m{config['m']}.json",
    log:
        f"{DB_PERF}/compare-n1000-m{config['m']}.log",
    threads: workflow.cores
    shell:
        "python3 scripts/dbsm_compare_modes.py --binary {input.binary} --n 1000 --m {config[m]}"
        " --threads 1 --scaling 2 --calibration {input.calibration} --json {output.json}"
        f" --raw-dir {DB_PERF}/raw-n1000-m{config['m']}"
        " > {output.txt} 2> {log}"
