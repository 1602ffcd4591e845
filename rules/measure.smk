# The measuring jobs, written once: one job per planned run of every selected experiment, its
# command line from the experiment's descriptor, run natively or inside the experiment's image
# (the `runner` key), its report and logs in RESULTS/raw/<experiment>/<run>/.

RAW_OUTPUTS += [f"{d}/report.json" for e in SELECTED for d in run_dirs(e)]


rule measure:
    """One run of one experiment: its program with the run's parameters, the report it writes
    (report.json: the suite's envelope around the experiment's measurements), its progress and
    errors in stderr.log, and Snakemake's time and memory of the job in benchmark.tsv."""
    input:
        unpack(measure_inputs),
    output:
        f"{RESULTS}/raw/{{experiment}}/{{run}}/report.json",
    log:
        f"{RESULTS}/raw/{{experiment}}/{{run}}/stderr.log",
    benchmark:
        f"{RESULTS}/raw/{{experiment}}/{{run}}/benchmark.tsv"
    wildcard_constraints:
        experiment="|".join(re.escape(e) for e in SELECTED),
        run="[^/]+",
    params:
        command=measure_command,
    threads: measuring_threads
    resources:
        mem_mb=lambda wc: estimate_of(wc).mem_mb,
        runtime=measure_runtime,
        # A run whose processes SLURM places on nodes of their own: the job's nodes and tasks,
        # and `mpi` (the command starts its own steps); unset for every other run.
        nodes=lambda wc: cluster_of(wc).get("nodes"),
        tasks=lambda wc: cluster_of(wc).get("tasks"),
        mpi=lambda wc: cluster_of(wc).get("mpi"),
    conda:
        SOFTWARE
    shell:
        "{params.command}"
