# Build rules, written once: every program of the selected experiments from its cargo package
# (the binary-to-package map comes from the experiments' descriptors), and the Node packages
# they need (npm ci). Each build touches its output, because cargo and npm leave a file alone
# when nothing changed, and Snakemake would then rebuild on every run.

check_environment()

PROGRAMS = {p.path: p for p in descriptors.programs(SELECTED).values()}
NODE_PACKAGES = sorted({p for name in SELECTED for p in descriptors.get(name).node_packages})
# The analysis: the package, every experiment's folder (parsers, sections, costs) and every
# study's folder (its comparisons).
ANALYSIS_SOURCES = sources(
    "analysis/**/*.py", "analysis/data/**", "experiments/*/*.py", "experiments/*/*.yaml", "studies/*/*.py"
)

BUILD_OUTPUTS += list(PROGRAMS) + [node_stamp(p) for p in NODE_PACKAGES]


rule build_program:
    """Compile one program of the workspace (release)."""
    input:
        lambda wc: crate_sources(*PROGRAMS[wc.path].sources),
    output:
        "{path}",
    log:
        "build/logs/{path}.log",
    wildcard_constraints:
        path="|".join(re.escape(p) for p in PROGRAMS) or "(?!)",
    params:
        command=lambda wc: shlex.join(PROGRAMS[wc.path].build_command),
    threads: whole_machine
    resources:
        mem_mb=6000,
        runtime=60,
        cargo=1,
    conda:
        SOFTWARE
    shell:
        "{params.command} 2> >(tee {log} >&2) && mkdir -p $(dirname {output}) && touch {output}"


rule npm_ci:
    """Install a Node package's dependencies from its lock file."""
    input:
        "{package}/package.json",
        "{package}/package-lock.json",
    output:
        "{package}/node_modules/.package-lock.json",
    log:
        "build/logs/npm_ci_{package}.log",
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        SOFTWARE
    shell:
        "(cd {wildcards.package} && npm ci --no-audit --no-fund && touch node_modules/.package-lock.json)"
        " > {log} 2>&1"
