# Traceable-mixnets benchmark suite: builds the programs, runs the experiments the config asks
# for, and renders results/report.pdf.
#
#   snakemake --cores 1 all                                  # the paper's setting (config.yaml)
#   snakemake --cores 2 all --configfile config/smoke.yaml   # everything at small n, minutes
#   snakemake --cores 1 all --config threads='[1,2]'         # override single keys
#   snakemake --cores 1 all --configfile my.yaml             # n, m: one-letter keys need a file
#
# Each experiment is a program with its own command line (see experiments/*.smk); this file only
# decides parameters, order and where results go. Benchmark jobs claim every core Snakemake is
# given, so two measurements never run at the same time.

configfile: "config.yaml"


include: "experiments/common.smk"


check_config(config)

RESULTS = config["results"].rstrip("/")
EXPERIMENTS = config["experiments"]

if config["runner"] == "docker":
    require_tools(["docker"], "runner: docker")
else:
    needs = {"db-sm-rsm": ["cargo"], "cpsnark-sm": ["cargo"], "zksnark-sm-rsm": ["cargo", "node", "npm"]}
    for experiment in EXPERIMENTS:
        require_tools(needs[experiment], f"experiment {experiment}")


def raw_outputs():
    """Every raw result file of the selected experiments, for every parameter set."""
    outputs = []
    if "zksnark-sm-rsm" in EXPERIMENTS:
        outputs += zksnark_outputs()
    if "db-sm-rsm" in EXPERIMENTS:
        outputs += dbsmrsm_outputs()
    if "cpsnark-sm" in EXPERIMENTS:
        outputs += cpsnark_outputs()
    return outputs



include: "experiments/build.smk"
include: "experiments/zksnark.smk"
include: "experiments/dbsmrsm.smk"
include: "experiments/cpsnark.smk"
include: "experiments/analysis.smk"


localrules: all, raw, build


rule all:
    """The PDF report (and everything it is made from)."""
    input:
        f"{RESULTS}/report.pdf",


rule raw:
    """Run the selected experiments only, without the analysis."""
    input:
        raw_outputs(),


rule build:
    """Build the programs the selected experiments need (natively, or their images)."""
    input:
        build_outputs(),
