# Build rules: the Rust workspace binaries, the cpsnark-sm benchmark, the Node packages, and
# (runner: docker) one image per experiment. Each build touches its output, because cargo and npm
# leave a file alone when nothing changed, and Snakemake would then rebuild on every run.

if config["runner"] == "native" and os.environ.get("CARGO_TARGET_DIR"):
    # The programs are run from target/release (by this workflow and by the zkSNARK driver).
    raise WorkflowError(
        f"CARGO_TARGET_DIR is set ({os.environ['CARGO_TARGET_DIR']}); the workflow runs the "
        "programs from ./target/release, so unset it"
    )

DBSM_BIN = "target/release/db-sm-rsm"
PROVER_BIN = "target/release/zksnark-prover"
CPSNARK_BENCH_STAMP = "build/stamps/cpsnark-bench.stamp"
NODE_STAMP = "zksnark-sm-rsm/node_modules/.package-lock.json"

JS_SOURCES = sources("zksnark-sm-rsm/**/*.mjs", "zksnark-sm-rsm/**/*.js", "zksnark-sm-rsm/**/*.zok")
ANALYSIS_SOURCES = sources("analysis/**/*.py")


def build_outputs():
    if config["runner"] == "docker":
        images = [i for i in DOCKER_IMAGES if i in EXPERIMENTS or i == "analysis"]
        return [f"build/docker/{image}.stamp" for image in images]
    outputs = []
    if "db-sm-rsm" in EXPERIMENTS:
        outputs.append(DBSM_BIN)
    if "zksnark-sm-rsm" in EXPERIMENTS:
        outputs += [PROVER_BIN, NODE_STAMP]
    if "cpsnark-sm" in EXPERIMENTS:
        outputs.append(CPSNARK_BENCH_STAMP)
    return outputs


rule build_dbsmrsm:
    input:
        crate_sources("db-sm-rsm"),
    output:
        DBSM_BIN,
    shell:
        "cargo build --release -p db-sm-rsm --bin db-sm-rsm && test -x {output} && touch {output}"


rule build_zksnark_prover:
    input:
        crate_sources("zksnark-sm-rsm/prover"),
    output:
        PROVER_BIN,
    shell:
        "cargo build --release -p zksnark-prover --bin zksnark-prover"
        " && test -x {output} && touch {output}"


rule build_cpsnark_bench:
    """Compile the criterion benchmark ahead, so its run measures and does not compile."""
    input:
        crate_sources("cpsnark-sm"),
    output:
        touch(CPSNARK_BENCH_STAMP),
    shell:
        "cargo bench --no-run -p cpsnark-sm --bench membership_hash"


rule npm_ci:
    input:
        "zksnark-sm-rsm/package.json",
        "zksnark-sm-rsm/package-lock.json",
    output:
        NODE_STAMP,
    shell:
        "cd zksnark-sm-rsm && npm ci --no-audit --no-fund && touch node_modules/.package-lock.json"


def image_sources(image):
    """What each image is built from (its COPY sources), so a change rebuilds the image."""
    common = [f"experiments/docker/{image}.Dockerfile"]
    if image == "analysis":
        return common + ["requirements.txt"] + ANALYSIS_SOURCES
    deps = common + RUST_SOURCES
    if image == "zksnark-sm-rsm":
        deps += sources("zksnark-sm-rsm/package*.json") + JS_SOURCES
    return deps


rule docker_image:
    """Build one experiment's image (runner: docker), from the repository root as context."""
    input:
        lambda wc: image_sources(wc.image),
    output:
        touch("build/docker/{image}.stamp"),
    wildcard_constraints:
        image="|".join(DOCKER_IMAGES),
    params:
        tag=lambda wc: image_tag(wc.image),
    shell:
        "docker build -f experiments/docker/{wildcards.image}.Dockerfile -t {params.tag} ."
