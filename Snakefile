"""Traceable-mixnets benchmark suite: builds the programs, runs the experiments the configuration
asks for, and renders results/report.pdf.

    snakemake --cores 1 all                                   # the paper's setting (config.yaml)
    snakemake --cores 2 all --configfile config/smoke.yaml    # everything at small n, minutes
    snakemake --cores 1 all --config entries=1000 threads=[1,2]
    snakemake --profile profiles/slurm all                    # on a SLURM cluster

Each experiment is a program with its own command line (experiments/*.smk); this file only
decides parameters, order and where results go. Before anything runs, the workflow prints every
job with its estimated time and peak memory on this machine.
"""

from snakemake.utils import min_version

min_version("9.0")


include: "experiments/common.smk"


# config.yaml holds the defaults; --configfile and --config values (already in `config`) win.
checked_config(config, "config.yaml")
RESULTS = config["results"].rstrip("/")
EXPERIMENTS = config["experiments"]
require_tools(EXPERIMENTS)
PLANNED, ESTIMATES, PLAN_PROBE = plan_and_estimate(config)
PROVENANCE = provenance()
# Every raw result of the selected experiments; each module adds its own.
RAW_OUTPUTS = []
BUILD_OUTPUTS = []


include: "experiments/build.smk"
include: "experiments/zksnark.smk"
include: "experiments/dbsmrsm.smk"
include: "experiments/cpsnark.smk"
include: "experiments/veccom.smk"
include: "experiments/collab.smk"
include: "experiments/cmix.smk"
include: "experiments/mithril.smk"
include: "experiments/analysis.smk"


localrules:
    all,
    raw,
    build,
    run_config,


rule all:
    """The PDF report, every run verified, and the summary on the terminal."""
    input:
        f"{RESULTS}/verified.txt",
    default_target: True


rule raw:
    """Run the selected experiments only, without the analysis (with results/config.json, which
    says what ran)."""
    input:
        RAW_OUTPUTS,
        f"{RESULTS}/config.json",


rule build:
    """Build the programs the selected experiments need."""
    input:
        BUILD_OUTPUTS,


onstart:
    record_estimates(RESULTS)


onsuccess:
    print_summary(RESULTS)


onerror:
    print_summary(RESULTS)
