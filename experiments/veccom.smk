# Vector commitments (the seed benchmark of Algorand's veccom-rust): the pairing-based scheme on
# BLS12-381 and Merkle trees on SHA-256 and BLAKE3, every operation timed beside its
# counted-operation lower bound. One run measures every configured thread count.

VC_RAW = f"{RESULTS}/raw/veccom"
VC_SCHEME = plan_runs.SCHEMES["veccom"]
RAW_OUTPUTS += [f"{d}/report.json" for d in run_dirs("veccom")]


rule veccom_run:
    """veccom-bench: set-up, commit, prove, verify, updates and batches at each length, with
    lower bounds and (one thread) the ablation of each optimisation."""
    input:
        VECCOM_BIN,
    output:
        json=f"{VC_RAW}/{{run}}/report.json",
    log:
        f"{VC_RAW}/{{run}}/stderr.log",
    benchmark:
        f"{VC_RAW}/{{run}}/benchmark.tsv"
    wildcard_constraints:
        run=VC_SCHEME.pattern,
    params:
        args=lambda wc: veccom_args(run_of("veccom", wc.run)),
    threads: measuring_threads("veccom")
    resources:
        **job_resources("veccom"),
    # A failed check exits 1 with the report written: keep it for the PDF to flag.
    conda:
        SOFTWARE
    shell:
        "{input} {params.args} --out {output.json} > {log}.stdout 2> >(tee {log} >&2)"
        " || {{ rc=$?; echo \"veccom-bench exited with status $rc; see {log}\" >&2;"
        " test -s {output.json} || exit $rc; }}"
