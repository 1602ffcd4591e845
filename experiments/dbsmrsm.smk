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
