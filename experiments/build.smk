# Build rules: the Rust workspace's programs, the cpsnark-sm benchmark and the Node packages.
# Each build touches its output, because cargo and npm leave a file alone when nothing changed,
# and Snakemake would then rebuild on every run.

check_environment()

DBSM_BIN = "target/release/db-sm-rsm"
PROVER_BIN = "target/release/zksnark-prover"
CPSNARK_BENCH_STAMP = "build/stamps/cpsnark-bench.stamp"
VECCOM_BIN = "target/release/veccom-bench"
OPTIMIZED_BIN = "target/release/zksnark-optimized"
COLLAB_BIN = "target/release/collab-groth16"
CMIX_BIN = "target/release/cmix-bench"
MITHRIL_BIN = "target/release/mithril-bench"
NODE_STAMP = "zksnark-sm-rsm/node_modules/.package-lock.json"
JS_SOURCES = sources(
    "zksnark-sm-rsm/**/*.mjs", "zksnark-sm-rsm/**/*.js", "zksnark-sm-rsm/**/*.zok"
)
ANALYSIS_SOURCES = sources("analysis/**/*.py", "analysis/data/**")

BUILD_OUTPUTS += [DBSM_BIN] if "db-sm-rsm" in EXPERIMENTS else []
BUILD_OUTPUTS += [PROVER_BIN, OPTIMIZED_BIN, NODE_STAMP] if "zksnark-sm-rsm" in EXPERIMENTS else []
BUILD_OUTPUTS += [COLLAB_BIN] if "collab-groth16" in EXPERIMENTS else []
BUILD_OUTPUTS += [CPSNARK_BENCH_STAMP] if "cpsnark-sm" in EXPERIMENTS else []
BUILD_OUTPUTS += [VECCOM_BIN] if "veccom" in EXPERIMENTS else []
BUILD_OUTPUTS += [CMIX_BIN] if "cmix" in EXPERIMENTS else []
BUILD_OUTPUTS += [MITHRIL_BIN] if "mithril" in EXPERIMENTS else []


rule build_dbsmrsm:
    """Compile db-sm-rsm (release)."""
    input:
        crate_sources("db-sm-rsm"),
    output:
        DBSM_BIN,
    log:
        "build/logs/build_dbsmrsm.log",
    threads: whole_machine()
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "cargo build --release -p db-sm-rsm --bin db-sm-rsm 2> >(tee {log} >&2)"
        " && test -x {output} && touch {output}"


rule build_zksnark_prover:
    """Compile the native Groth16 prover of the zkSNARK experiment (release)."""
    input:
        crate_sources("zksnark-sm-rsm/prover"),
    output:
        PROVER_BIN,
    log:
        "build/logs/build_zksnark_prover.log",
    threads: whole_machine()
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "cargo build --release -p zksnark-prover --bin zksnark-prover 2> >(tee {log} >&2)"
        " && test -x {output} && touch {output}"


rule build_zksnark_optimized:
    """Compile the builder of our optimised zkSNARK circuit (release)."""
    input:
        crate_sources("zksnark-sm-rsm/optimized", "zksnark-sm-rsm/prover"),
    output:
        OPTIMIZED_BIN,
    log:
        "build/logs/build_zksnark_optimized.log",
    threads: whole_machine()
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "cargo build --release -p zksnark-optimized --bin zksnark-optimized 2> >(tee {log} >&2)"
        " && test -x {output} && touch {output}"


rule build_collab:
    """Compile the collaborative Groth16 prover (release)."""
    input:
        crate_sources("zksnark-sm-rsm/collab", "zksnark-sm-rsm/prover"),
    output:
        COLLAB_BIN,
    log:
        "build/logs/build_collab.log",
    threads: whole_machine()
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "cargo build --release -p collab-groth16 --bin collab-groth16 2> >(tee {log} >&2)"
        " && test -x {output} && touch {output}"


rule build_cpsnark_bench:
    """Compile the cpSNARK-Set criterion benchmark ahead, so its run measures and does not
    compile."""
    input:
        crate_sources("cpsnark-sm"),
    output:
        touch(CPSNARK_BENCH_STAMP),
    log:
        "build/logs/build_cpsnark_bench.log",
    threads: whole_machine()
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "cargo bench --no-run -p cpsnark-sm --bench membership_hash 2> >(tee {log} >&2)"


rule build_veccom:
    """Compile veccom-bench (release)."""
    input:
        crate_sources("veccom"),
    output:
        VECCOM_BIN,
    log:
        "build/logs/build_veccom.log",
    threads: whole_machine()
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "cargo build --release -p veccom --bin veccom-bench 2> >(tee {log} >&2)"
        " && test -x {output} && touch {output}"


rule build_cmix:
    """Compile cmix-bench (release)."""
    input:
        crate_sources("cmix"),
    output:
        CMIX_BIN,
    log:
        "build/logs/build_cmix.log",
    threads: whole_machine()
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "cargo build --release -p cmix --bin cmix-bench 2> >(tee {log} >&2)"
        " && test -x {output} && touch {output}"


rule build_mithril:
    """Compile mithril-bench (release)."""
    input:
        crate_sources("mithril-msp"),
    output:
        MITHRIL_BIN,
    log:
        "build/logs/build_mithril.log",
    threads: whole_machine()
    resources:
        mem_mb=6000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "cargo build --release -p mithril-msp --bin mithril-bench 2> >(tee {log} >&2)"
        " && test -x {output} && touch {output}"


rule npm_ci:
    """Install the zkSNARK driver's Node packages from its lock file."""
    input:
        "zksnark-sm-rsm/package.json",
        "zksnark-sm-rsm/package-lock.json",
    output:
        NODE_STAMP,
    log:
        "build/logs/npm_ci.log",
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        SOFTWARE
    shell:
        "(cd zksnark-sm-rsm && npm ci --no-audit --no-fund && touch node_modules/.package-lock.json)"
        " > {log} 2>&1"
