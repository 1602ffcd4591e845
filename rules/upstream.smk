# Builds of the paper's own code from its pinned sources (upstream/sources.yaml), written once:
# each part that a selected experiment's runs need (its descriptor's UPSTREAM) is built once per
# key into the cache (`upstream_cache`) by analysis/plan/upstream_build.py, the same command the
# tests use, and reused by every later run. Where the sources come from: `upstream_sources` (a
# directory of the pinned archives, checked against their digests before anything runs), else the
# repositories, cloned. An experiment whose sources cannot be had plans no run; the terminal says
# so here, and the PDF's first page too (results/config.json's `left_out`).

UPSTREAM_CACHE = plan_upstream.cache_root(config)
UPSTREAM_SOURCES = plan_upstream.sources_dir(config)
# The record of each part's build the planned runs need, by part.
UPSTREAM_STAMPS = {
    part: str(plan_upstream.stamp_path(UPSTREAM_CACHE, plan_upstream.pins().part(part)))
    for name in SELECTED
    if PLANNED.get(name)
    for part in descriptors.get(name).upstream
}
BUILD_OUTPUTS += list(UPSTREAM_STAMPS.values())

if workflow.is_main_process:
    # One line per reason (the experiments of the paper's own code share theirs).
    for why in dict.fromkeys(LEFT_OUT.values()):
        names = ", ".join(n for n, w in LEFT_OUT.items() if w == why)
        say(f"note: the paper's own code is left out ({names}): {why}")


rule upstream_build:
    """Build one part of the paper's own code from its pinned sources, once per key (reused when
    built)."""
    output:
        f"{UPSTREAM_CACHE}/builds/{{part}}-{{key}}/built.json",
    log:
        f"{RESULTS}/logs/upstream_{{part}}-{{key}}.log",
    wildcard_constraints:
        part="|".join(re.escape(p) for p in UPSTREAM_STAMPS) or "(?!)",
        key="[0-9a-f]{16}",
    params:
        command=lambda wc: shlex.join(
            ["python3", "-m", "analysis.plan.upstream_build", "build", wc.part, "--cache", str(UPSTREAM_CACHE)]
            + (["--sources", str(UPSTREAM_SOURCES)] if UPSTREAM_SOURCES else [])
        ),
    threads: whole_machine
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "{params.command} 2> >(tee {log} >&2)"
