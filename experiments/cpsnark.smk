# Experiment 3 of the paper: Benarroch et al.'s cpSNARK-Set membership (our Rust implementation),
# timed by its criterion benchmark. Prove and verify do not depend on n; the membership witness
# does, so the benchmark runs once per set size.

import re

CP_RAW = f"{RESULTS}/raw/cpsnark-sm"
CP_RUN = re.compile(r"n(\d+)-t(\d+)(?:-r(\d+))?")


def cpsnark_run_ids():
    return [
        f"n{n}-t{threads}{rep_suffix(rep)}"
        for n in set_sizes()
        for threads in config["threads"]
        for rep in reps()
    ]


def cpsnark_outputs():
    return [f"{CP_RAW}/{r}/{f}" for r in cpsnark_run_ids() for f in ("report.txt", "summary.json")]


def from_crate_dir(path):
    """cargo runs a benchmark inside its crate's directory: a relative path must start there."""
    return path if os.path.isabs(path) else os.path.join("..", path)


def cpsnark_env(wildcards):
    n, threads, rep = CP_RUN.fullmatch(wildcards.run).groups()
    json = from_crate_dir(f"{CP_RAW}/{wildcards.run}/summary.json")
    # the same seed scheme as the other experiments' --seed (seed_arg)
    seed = "" if config["seed"] is None else f" CPSNARK_SEED={config['seed'] + int(rep or 1) - 1}"
    return (
        f"CPSNARK_N={n} CPSNARK_SAMPLES={config['cpsnark_samples']} CPSNARK_JSON={json}{seed} "
        f"RAYON_NUM_THREADS={threads}"
    )


rule cpsnark_run:
    input:
        tool_inputs([CPSNARK_BENCH_STAMP], "cpsnark-sm"),
    output:
        txt=f"{CP_RAW}/{{run}}/report.txt",
        json=f"{CP_RAW}/{{run}}/summary.json",
    log:
        f"{CP_RAW}/{{run}}/stderr.log",
    wildcard_constraints:
        run=CP_RUN.pattern,
    params:
        prefix=runner_prefix("cpsnark-sm"),
        env=cpsnark_env,
    threads: workflow.cores
    shell:
        "{params.prefix}env {params.env} cargo bench -p cpsnark-sm --bench membership_hash"
        " > {output.txt} 2> {log}"
