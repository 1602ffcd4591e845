# Mithril's mergeable multisignatures (MSP): the aggregation natively on BLS12-381 (blst), every
# operation timed beside its counted-operation lower bound, and the randomised aggregation MSP.B
# proven in a halo2 circuit over BN254: the circuit counted at each signer count, real proofs at
# the configured ones (each size and proof in a child process of its own, with its peak memory).
# One run measures every configured signer count and thread count.

MITHRIL_RAW = f"{RESULTS}/raw/mithril"
MITHRIL_SCHEME = plan_runs.SCHEMES["mithril"]
RAW_OUTPUTS += [f"{d}/report.json" for d in run_dirs("mithril")]


rule mithril_run:
    """mithril-bench: native MSP.AKey/ASig/BKey/BSig/Ver and batch verification with lower
    bounds and the cancellation check; the MSP.B circuit's cells, keys, proofs, verification,
    proof size and peak memory per signer count; the fits and the targets."""
    input:
        MITHRIL_BIN,
    output:
        json=f"{MITHRIL_RAW}/{{run}}/report.json",
    log:
        f"{MITHRIL_RAW}/{{run}}/stderr.log",
    benchmark:
        f"{MITHRIL_RAW}/{{run}}/benchmark.tsv"
    wildcard_constraints:
        run=MITHRIL_SCHEME.pattern,
    params:
        args=lambda wc: mithril_args(run_of("mithril", wc.run)),
    threads: measuring_threads("mithril")
    resources:
        **job_resources("mithril"),
    # A failed check exits 1 with the report written: keep it for the PDF to flag.
    conda:
        SOFTWARE
    shell:
        "{input} {params.args} --out {output.json} > {log}.stdout 2> >(tee {log} >&2)"
        " || {{ rc=$?; echo \"mithril-bench exited with status $rc; see {log}\" >&2;"
        " test -s {output.json} || exit $rc; }}"
