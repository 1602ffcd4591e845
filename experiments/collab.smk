# The collaborative Groth16 prover (collab-groth16): m parties, each its own process, jointly
# prove the circuit and witness that the zkSNARK run of the same statement, n and threads built
# (its build/ directory), over additive shares of the witness. One run covers every configured
# party count and variant, with the single prover sampled around each.

CO_RAW = f"{RESULTS}/raw/collab-groth16"
CO_SCHEME = plan_runs.SCHEMES["collab-groth16"]
RAW_OUTPUTS += [f"{d}/report.json" for d in run_dirs("collab-groth16")]


rule collab_run:
    """Every party count and variant on one circuit: per-party online CPU and wall time, bytes,
    rounds, preprocessing, and the proof checked by the ordinary verifier."""
    input:
        binary=COLLAB_BIN,
        zksnark=lambda wc: f"{ZK_RAW}/{plan_runs.zksnark_run_of(run_of('collab-groth16', wc.run))}/report.json",
    output:
        json=f"{CO_RAW}/{{run}}/report.json",
    log:
        f"{CO_RAW}/{{run}}/stderr.log",
    benchmark:
        f"{CO_RAW}/{{run}}/benchmark.tsv"
    wildcard_constraints:
        run=CO_SCHEME.pattern,
    params:
        args=lambda wc, input: collab_args(run_of("collab-groth16", wc.run), input.zksnark),
    threads: measuring_threads("collab-groth16")
    resources:
        **job_resources("collab-groth16"),
    # A proof that does not verify exits 1 with the report written: keep it for the PDF.
    conda:
        SOFTWARE
    shell:
        "{input.binary} run {params.args} --json {output.json} 2> >(tee {log} >&2)"
        " || {{ rc=$?; echo \"collab-groth16 exited with status $rc; see {log}\" >&2;"
        " test -s {output.json} || exit $rc; }}"
