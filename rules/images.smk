# Container images (the `runner` key): one image per experiment and one for the analysis, built
# FROM the suite's base image out of what the host already built (no network inside a build),
# tagged with the code's commit; `snakemake images` also writes each as an archive,
# RESULTS/images/tmbench-<name>.tar, that `podman load` / `docker load` (or Apptainer's
# docker-archive:) reads, naming the image `localhost/tmbench-<name>` with the commit's tag and
# `latest`. What the images hold and
# how the base is made: analysis/plan/containers.py and containers/.

# The engine that builds the images: the configured runner, or podman for `snakemake images`
# when the measuring jobs run natively.
ENGINE = RUNNER if RUNNER != "native" else "podman"
IMAGE_TAG = plan_containers.image_tag(PROVENANCE)
# The experiments left out (the paper's own code without its sources) have no image to build.
IMAGES = [*(name for name in SELECTED if name not in LEFT_OUT), plan_containers.ANALYSIS]
CONTAINERS = "python3 -m analysis.plan.containers"



rule image_base:
    """The suite's base image: Debian bookworm with the run-time packages of its programs,
    pulled and extended where a registry answers, bootstrapped from Debian's archive where not."""
    input:
        "containers/base/packages.txt",
        "containers/base/Containerfile",
    output:
        image_id_file("base"),
    log:
        f"{RESULTS}/logs/image_base.log",
    params:
        tool=CONTAINERS,
        engine=ENGINE,
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        SOFTWARE
    shell:
        "{params.tool} base {params.engine} --id-out {output} 2> >(tee {log} >&2)"


rule image:
    """One image: an experiment's programs as built on the host, or the analysis."""
    input:
        unpack(image_inputs),
    output:
        image_id_file("{name}"),
    log:
        f"{RESULTS}/logs/image_{{name}}.log",
    wildcard_constraints:
        name="|".join(re.escape(n) for n in IMAGES),
    params:
        tool=CONTAINERS,
        engine=ENGINE,
        tag=IMAGE_TAG,
        cache=shlex.quote(str(UPSTREAM_CACHE)),
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        SOFTWARE
    shell:
        "{params.tool} image {params.engine} {wildcards.name} --base-id {input.base} --tag {params.tag}"
        " --upstream-cache {params.cache} --id-out {output} 2> >(tee {log} >&2)"


rule image_archive:
    """An image as an archive (docker-archive format) for another machine or a cluster."""
    input:
        image_id_file("{name}"),
    output:
        f"{RESULTS}/images/tmbench-{{name}}.tar",
    log:
        f"{RESULTS}/logs/image_archive_{{name}}.log",
    wildcard_constraints:
        name="|".join(re.escape(n) for n in IMAGES),
    params:
        tool=CONTAINERS,
        engine=ENGINE,
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        SOFTWARE
    shell:
        "{params.tool} save {params.engine} --id {input} --out {output} 2> >(tee {log} >&2)"


rule images:
    """Every image of the selected experiments and the analysis, as archives in RESULTS/images/
    (tmbench-<name>.tar)."""
    input:
        [f"{RESULTS}/images/tmbench-{name}.tar" for name in IMAGES],
