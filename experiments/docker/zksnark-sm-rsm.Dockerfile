# Experiment 2 (zkSNARK SM and RSM): the node driver with zokrates-js, and the native
# ark-groth16 prover, on Debian bookworm with Node 20.
#   docker build -f experiments/docker/zksnark-sm-rsm.Dockerfile -t tmbench/zksnark-sm-rsm:local .
FROM rust:1.95.0-bookworm AS build
WORKDIR /work
# Every workspace member must be present for cargo to read the workspace.
COPY Cargo.toml Cargo.lock ./
COPY db-sm-rsm/ db-sm-rsm/
COPY cpsnark-sm/ cpsnark-sm/
COPY zksnark-sm-rsm/prover/ zksnark-sm-rsm/prover/
RUN cargo build --release --locked -p zksnark-prover --bin zksnark-prover

FROM node:20.20.2-bookworm-slim
WORKDIR /work
# node_modules and build/ are excluded by zksnark-sm-rsm.Dockerfile.dockerignore.
COPY zksnark-sm-rsm/ zksnark-sm-rsm/
RUN cd zksnark-sm-rsm && npm ci --no-audit --no-fund
# Same path as a native build: the driver finds the prover where the workflow built it.
COPY --from=build /work/target/release/zksnark-prover target/release/zksnark-prover
