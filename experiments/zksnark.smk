# Experiment 2 of the paper: zkSNARK set membership (sm) and reverse set membership (rsm) over a
# Merkle tree, Groth16 on BN254: the paper's ZoKrates circuit, proven by zokrates-js (wasm) and
# by the native ark-groth16 prover, and our optimised circuit (fewest constraints) on the same
# native prover in the same run. One job per (statement, hash, n, threads, repetition).

ZK_RAW = f"{RESULTS}/raw/zksnark-sm-rsm"
ZK_SCHEME = plan_runs.SCHEMES["zksnark-sm-rsm"]
RAW_OUTPUTS += [
    f"{d}/{f}"
    for d in run_dirs("zksnark-sm-rsm")
    for f in ["report.json", *(f"report-{p}.txt" for p in config["zksnark_provers"])]
]


rule zksnark_run:
    """One zkSNARK statement: circuit compile, trusted setup, proof and verification by every
    configured prover."""
    input:
        JS_SOURCES,
        NODE_STAMP,
        PROVER_BIN,
        OPTIMIZED_BIN,
    output:
        json=f"{ZK_RAW}/{{run}}/report.json",
        reports=[f"{ZK_RAW}/{{run}}/report-{p}.txt" for p in config["zksnark_provers"]],
    log:
        f"{ZK_RAW}/{{run}}/stderr.log",
    benchmark:
        f"{ZK_RAW}/{{run}}/benchmark.tsv"
    wildcard_constraints:
        run=ZK_SCHEME.pattern,
    params:
        args=lambda wc: zksnark_args(run_of("zksnark-sm-rsm", wc.run), f"{ZK_RAW}/{wc.run}"),
    threads: measuring_threads("zksnark-sm-rsm")
    resources:
        **job_resources("zksnark-sm-rsm"),
    # A failed verification still leaves complete reports: keep them (the PDF flags FAILED and
    # the `verify` rule fails the run) instead of letting Snakemake delete them.
    conda:
        SOFTWARE
    shell:
        "node zksnark-sm-rsm/run.mjs {params.args} 2> >(tee {log} >&2)"
        " || {{ rc=$?; echo \"zksnark-sm-rsm exited with status $rc; see {log}\" >&2;"
        " test -s {output.json} || exit $rc; }}"
