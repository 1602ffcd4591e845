# Experiment 2 of the paper: zkSNARK set membership (sm) and reverse set membership (rsm) over a
# Merkle tree, Groth16 on BN254, proven by zokrates-js (wasm) and by the native ark-groth16 prover.
# One job per (statement, hash, n, threads, repetition); the command line is the node driver's
# (interfaces.md), identical natively and in the image.

import re

ZK_RAW = f"{RESULTS}/raw/zksnark-sm-rsm"
ZK_RUN = re.compile(r"(sm|rsm)-(poseidon|sha256)-n(\d+)-t(\d+)(?:-r(\d+))?")


def zksnark_run_ids():
    return [
        f"{statement}-{hash}-n{n}-t{threads}{rep_suffix(rep)}"
        for statement in config["statements"]
        for hash in config["hash"]
        for n in set_sizes()
        for threads in config["threads"]
        for rep in reps()
    ]


def zksnark_files(run_id):
    files = [f"{ZK_RAW}/{run_id}/report.json"]
    files += [f"{ZK_RAW}/{run_id}/report-{prover}.txt" for prover in config["zksnark_provers"]]
    return files


def zksnark_outputs():
    return [f for run_id in zksnark_run_ids() for f in zksnark_files(run_id)]


def zksnark_args(wildcards):
    statement, hash, n, threads, rep = ZK_RUN.fullmatch(wildcards.run).groups()
    return (
        f"--statement {statement} --n {n} --hash {hash} --threads {threads} "
        f"--out {ZK_RAW}/{wildcards.run}{seed_arg(int(rep or 1))} "
        f"--provers {','.join(config['zksnark_provers'])}"
    )


rule zksnark_run:
    input:
        JS_SOURCES,
        tool_inputs([NODE_STAMP, PROVER_BIN], "zksnark-sm-rsm"),
    output:
        json=f"{ZK_RAW}/{{run}}/report.json",
        reports=[f"{ZK_RAW}/{{run}}/report-{p}.txt" for p in config["zksnark_provers"]],
    log:
        f"{ZK_RAW}/{{run}}/stderr.log",
    wildcard_constraints:
        run=ZK_RUN.pattern,
    params:
        prefix=runner_prefix("zksnark-sm-rsm"),
        args=zksnark_args,
    threads: workflow.cores
    # A failed verification still leaves complete reports: keep them (the analysis flags FAILED
    # in the PDF, scripts/test checks for it) instead of letting Snakemake delete them.
    shell:
        "{params.prefix}node zksnark-sm-rsm/run.mjs {params.args} 2> {log}"
        " || {{ rc=$?; echo \"zksnark-sm-rsm exited with status $rc; see {log}\" >&2;"
        " test -s {output.json} || exit $rc; }}"
