# Experiment 1 (DB-SM and DB-RSM): the db-sm-rsm binary on Debian bookworm.
#   docker build -f experiments/docker/db-sm-rsm.Dockerfile -t tmbench/db-sm-rsm:local .
# Built from the repository root; the workflow's docker runner does this (rule docker_image).
FROM rust:1.95.0-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libgmp-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /work
# Every workspace member must be present for cargo to read the workspace.
COPY Cargo.toml Cargo.lock ./
COPY db-sm-rsm/ db-sm-rsm/
COPY cpsnark-sm/ cpsnark-sm/
COPY zksnark-sm-rsm/prover/ zksnark-sm-rsm/prover/
RUN cargo build --release --locked -p db-sm-rsm --bin db-sm-rsm

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libgmp10 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /work
# Same path as a native build, so the workflow's command line is the same in both runners.
COPY --from=build /work/target/release/db-sm-rsm target/release/db-sm-rsm
