# The `contour` command line in a small Debian image — the image deploy/k8s-sweep-job.yaml
# runs:
#
#   docker build -t registry.example/contour:latest .
#   docker run --rm -v "$PWD/out:/out" registry.example/contour:latest \
#       sweep /scenarios/sweep_pendulum.toml -o /out/pendulum
#
# Stage 1 builds the binary with the versions of Cargo.lock (`cargo install --locked`);
# stage 2 holds only the binary and the example scenarios (/scenarios), run as a non-root user.

FROM rust:1-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo install --locked --path crates/cli --root /opt/contour

FROM debian:bookworm-slim
COPY --from=build /opt/contour/bin/contour /usr/local/bin/contour
COPY examples/scenarios /scenarios
RUN useradd --uid 1000 --create-home contour
USER 1000
WORKDIR /home/contour
ENTRYPOINT ["contour"]
CMD ["--help"]
