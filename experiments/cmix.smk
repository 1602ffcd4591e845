# cMix (a mixnet with a precomputation and a real-time phase of multiplications only): three node
# processes and the clients over TLS on loopback, ElGamal on ristretto255 against a 2048-bit MODP
# group, every phase timed per node beside its counted-operation lower bound. One run per client
# count measures every configured group and thread count.

CMIX_RAW = f"{RESULTS}/raw/cmix"
CMIX_SCHEME = plan_runs.SCHEMES["cmix"]
RAW_OUTPUTS += [f"{d}/report.json" for d in run_dirs("cmix")]


rule cmix_run:
    """cmix-bench: batches of one message per client through the three nodes, per group and
    thread count: CPU, wall time and bytes of every phase at every node, the lower bounds, ec
    against mg, the targets against the thesis's figures."""
    input:
        CMIX_BIN,
    output:
        json=f"{CMIX_RAW}/{{run}}/report.json",
    log:
        f"{CMIX_RAW}/{{run}}/stderr.log",
    benchmark:
        f"{CMIX_RAW}/{{run}}/benchmark.tsv"
    wildcard_constraints:
        run=CMIX_SCHEME.pattern,
    params:
        args=lambda wc: cmix_args(run_of("cmix", wc.run)),
    threads: measuring_threads("cmix")
    resources:
        **job_resources("cmix"),
    # A failed check exits 1 with the report written: keep it for the PDF to flag.
    conda:
        SOFTWARE
    shell:
        "{input} {params.args} --out {output.json} > {log}.stdout 2> >(tee {log} >&2)"
        " || {{ rc=$?; echo \"cmix-bench exited with status $rc; see {log}\" >&2;"
        " test -s {output.json} || exit $rc; }}"
