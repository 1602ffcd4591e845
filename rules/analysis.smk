# The analysis: the configured runs' raw reports -> one tidy table -> tables, plots and
# results/report.pdf, then the check that every run verified. With a container runner, both run
# inside the analysis image. It reads results/config.json (the
# configuration, the run directories it makes, the code's commit) and the paper's sample reports
# shipped with the package (analysis/data/paper/).


rule run_config:
    """The validated configuration with every default filled in, the runs it makes and the
    commit of the code, for the analysis and the report's title page."""
    output:
        f"{RESULTS}/config.json",
    log:
        f"{RESULTS}/logs/run_config.log",
    params:
        # As a param, a changed configuration rewrites this file (and re-renders the report).
        text=run_config_text(),
    resources:
        mem_mb=100,
        runtime=5,
    run:
        write_atomically(output[0], params.text, log[0])


rule analysis_report:
    """Tidy table, tables, plots, the PDF and the terminal summary of the configured runs."""
    input:
        unpack(analysis_inputs),
        RAW_OUTPUTS,
        config=f"{RESULTS}/config.json",
    output:
        pdf=report(
            f"{RESULTS}/report.pdf",
            caption="report/pdf.rst",
            category="Report",
        ),
        csv=f"{RESULTS}/tidy.csv",
        parquet=f"{RESULTS}/tidy.parquet",
        summary=f"{RESULTS}/summary.txt",
        plots=report(
            directory(f"{RESULTS}/plots"),
            patterns=["{name}.png"],
            caption="report/plots.rst",
            category="Plots",
        ),
        tables=report(
            directory(f"{RESULTS}/tables"),
            patterns=["{name}.csv"],
            caption="report/tables.rst",
            category="Tables",
        ),
    log:
        f"{RESULTS}/logs/analysis.log",
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        results=lambda wildcards, output: os.path.dirname(output.summary),
        analysis=analysis_command,
    conda:
        SOFTWARE
    shell:
        "{params.analysis} report {params.results} 2> >(tee {log} >&2)"


rule verify:
    """Fail the run, after the PDF is written, if any run's proof or status did not verify."""
    input:
        unpack(analysis_inputs),
        f"{RESULTS}/summary.txt",
        f"{RESULTS}/report.pdf",
        config=f"{RESULTS}/config.json",
    output:
        f"{RESULTS}/verified.txt",
    log:
        f"{RESULTS}/logs/verify.log",
    resources:
        mem_mb=200,
        runtime=5,
    params:
        results=lambda wildcards, output: os.path.dirname(output[0]),
        analysis=analysis_command,
    conda:
        SOFTWARE
    shell:
        "{params.analysis} verify {params.results} > {output}.tmp 2> >(tee {log} >&2)"
        " && mv {output}.tmp {output}"
