# Dockerfile — sluice on Debian, for those who deploy with containers (not built in CI).
#   docker build -t sluice .
#   docker run --rm -p 8808:8808 -v "$PWD/data:/data:ro" sluice serve --db /data/shop.duckdb --http 0.0.0.0:8808
# Serving beyond loopback without [[api_keys]] or [auth] makes every caller anonymous: mount a
# config (-v ./sluice.toml:/etc/sluice/sluice.toml:ro) with keys for anything but a local test.
FROM debian:trixie AS build
WORKDIR /src
COPY . .
RUN apt-get update && scripts/bootstrap.sh --no-node && make install PREFIX=/opt/sluice BUILD=build-docker

FROM debian:trixie-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libjansson4 libsodium23 libssl3t64 libmicrohttpd12t64 libcurl4t64 libjwt2 libsqlite3-0 libpq5 libyaml-0-2 \
      libpg-query0 ca-certificates && rm -rf /var/lib/apt/lists/* && useradd -r -u 10001 sluice
COPY --from=build /opt/sluice /opt/sluice
USER sluice
ENTRYPOINT ["/opt/sluice/bin/sluice"]
CMD ["--help"]
