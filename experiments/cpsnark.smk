# Experiment 3 of the paper: Benarroch et al.'s cpSNARK-Set membership (our Rust implementation),
# timed by its criterion benchmark. Prove and verify do not depend on n; the membership witness
# does, so the benchmark runs once per set size.

CP_RAW = f"{RESULTS}/raw/cpsnark-sm"
CP_SCHEME = plan_runs.SCHEMES["cpsnark-sm"]
RAW_OUTPUTS += [f"{d}/{f}" for d in run_dirs("cpsnark-sm") for f in ("report.txt", "summary.json")]


rule cpsnark_run:
    """The cpSNARK-Set benchmark at one set size: prove, verify and the membership witness."""
    input:
        CPSNARK_BENCH_STAMP,
    output:
        txt=f"{CP_RAW}/{{run}}/report.txt",
        json=f"{CP_RAW}/{{run}}/summary.json",
    log:
        f"{CP_RAW}/{{run}}/stderr.log",
    benchmark:
        f"{CP_RAW}/{{run}}/benchmark.tsv"
    wildcard_constraints:
        run=CP_SCHEME.pattern,
    params:
        # cargo runs a benchmark inside its crate's directory: relative paths start there.
        json=lambda wc, output: os.path.abspath(output.json),
        n=lambda wc: run_of("cpsnark-sm", wc.run).params["n"],
        threads=lambda wc: run_of("cpsnark-sm", wc.run).params["threads"],
        samples=config["cpsnark_samples"],
        seed=lambda wc: (
            ""
            if plan_runs.seed_of(config, run_of("cpsnark-sm", wc.run).rep) is None
            else f" CPSNARK_SEED={plan_runs.seed_of(config, run_of('cpsnark-sm', wc.run).rep)}"
        ),
    threads: measuring_threads("cpsnark-sm")
    resources:
        **job_resources("cpsnark-sm"),
    conda:
        SOFTWARE
    shell:
        "env CPSNARK_N={params.n} CPSNARK_SAMPLES={params.samples}"
        " CPSNARK_JSON={params.json}{params.seed} RAYON_NUM_THREADS={params.threads}"
        " cargo bench -p cpsnark-sm --bench membership_hash > {output.txt} 2> >(tee {log} >&2)"
