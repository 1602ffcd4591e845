# Experiment 3 (cpSNARK-Set membership): the criterion benchmark, run with cargo bench, so the
# image keeps the Rust toolchain and the compiled benchmark.
#   docker build -f experiments/docker/cpsnark-sm.Dockerfile -t tmbench/cpsnark-sm:local .
FROM rust:1.95.0-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends libgmp-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /work
# Every workspace member must be present for cargo to read the workspace.
COPY Cargo.toml Cargo.lock ./
COPY db-sm-rsm/ db-sm-rsm/
COPY cpsnark-sm/ cpsnark-sm/
COPY zksnark-sm-rsm/prover/ zksnark-sm-rsm/prover/
# Compile now, so that a run measures and does not compile.
RUN cargo bench --no-run --locked -p cpsnark-sm --bench membership_hash
