# The analysis: every raw report -> one tidy table -> tables, plots and results/report.pdf.
# It reads the run's resolved configuration from results/config.json (title page, collaborative
# factor) and the paper's sample reports shipped with the package (analysis/data/paper/).

import json


rule run_config:
    """The validated configuration with every default filled in, for the report's title page."""
    output:
        f"{RESULTS}/config.json",
    params:
        # As a param, a changed config rewrites this file (and so re-renders the report).
        text=json.dumps(config, indent=2, sort_keys=True),
    run:
        tmp = output[0] + ".tmp"
        with open(tmp, "w") as f:
            f.write(params.text + "\n")
        os.replace(tmp, output[0])


rule analysis_report:
    input:
        ANALYSIS_SOURCES,
        tool_inputs([], "analysis"),
        raw_outputs(),
        config=f"{RESULTS}/config.json",
    output:
        pdf=f"{RESULTS}/report.pdf",
        csv=f"{RESULTS}/tidy.csv",
        parquet=f"{RESULTS}/tidy.parquet",
    log:
        f"{RESULTS}/analysis.log",
    params:
        prefix=runner_prefix("analysis"),
    shell:
        "{params.prefix}python -m analysis report " + RESULTS + " --config {input.config}"
        " > {log} 2>&1"
