"""Traceable-mixnets benchmark suite: builds the programs, runs the experiments the configuration
asks for, and renders results/report.pdf.

    snakemake --cores 1 all                                   # the paper's setting (config.yaml)
    snakemake --cores 2 all --configfile config/smoke.yaml    # everything at small n, minutes
    snakemake --cores 1 all --config entries=1000 threads=[1,2]
    snakemake --cores 1 all --config runner=podman            # every job inside its image
    snakemake --profile profiles/slurm all                    # on a SLURM cluster

Each experiment is a program with its own command line, described by its descriptor
(analysis/experiments/); this file and rules/*.smk only decide parameters, order and where
results go, and name no experiment. Before anything runs, the workflow prints every job with its
estimated time and peak memory on this machine.
"""

from snakemake.utils import min_version

min_version("9.0")


include: "rules/common.smk"
include: "rules/cluster.smk"


# config.yaml holds the defaults; --configfile and --config values (already in `config`) win.
checked_config(config, "config.yaml")
RESULTS = config["results"].rstrip("/")
RUNNER = config["runner"]
SELECTED = descriptors.selected(config)
require_tools(SELECTED, RUNNER)
# Selected experiments that plan no run here (the pinned sources of the paper's own code cannot be
# had: no internet, no upstream_sources), and why.
LEFT_OUT = upstream_left_out(config, SELECTED)
PLANNED, ESTIMATES, COST_MODEL, LIMIT_MB = plan_and_estimate(config, LEFT_OUT)
# Runs made in a given order (an experiment's `sequence`: pairs alternated), each with the one before.
PREDECESSORS = descriptors.predecessors(PLANNED)
PROVENANCE = provenance()
announce_dry_run()
# Every raw result and program of the selected experiments; the modules add theirs.
RAW_OUTPUTS = []
BUILD_OUTPUTS = []


include: "rules/build.smk"
include: "rules/upstream.smk"
include: "rules/measure.smk"
include: "rules/images.smk"
include: "rules/analysis.smk"


# Rules of benchmarks outside `all` that an experiment brings (its descriptor names the file).
for extra_rules in sorted({descriptors.get(e).rules for e in SELECTED} - {None}):

    include: extra_rules


localrules:
    all,
    raw,
    build,
    images,
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
    announce_and_record(RESULTS)


onsuccess:
    print_summary(RESULTS, failed=False)


onerror:
    print_summary(RESULTS, failed=True)
