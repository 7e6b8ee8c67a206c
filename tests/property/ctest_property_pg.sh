#!/usr/bin/env bash
# ctest_property_pg.sh — the blocked-field contract as a property on PostgreSQL (issue 21): the
# same generator as ctest_property.sh (sql_gen.mjs in its PostgreSQL mode: a quarter of the draws
# are PostgreSQL-only shapes, the rest rendered by toDialect), the canary copy of the demo database loaded into a throwaway cluster (every blocked cell a canary;
# a twin database with other canaries), `sluice serve --stdio` with engine "postgres" on the
# least-privilege read role, every reply, error, stderr and audit line scanned.
# Bounded for CI: PROPERTY_PG_COUNT statements (default 1500) or PROPERTY_PG_SECONDS (default
# 150). Long run: `make property-pg N=100000`.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
. "$SLUICE_SOURCE_DIR/scripts/pg_cluster.sh"
if [ ! -x "$PG_BIN/initdb" ]; then
    echo "ctest_property_pg: no PostgreSQL server at $PG_BIN (Debian package postgresql-15)" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'pg_cluster_stop; rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg_cluster_start "$tmp" "$port" sluice_admin
export PG_SOCKET PG_PORT="$port" PG_SUPERUSER=sluice_admin
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
here="$SLUICE_SOURCE_DIR/tests/property"
node "$here/run.mjs" --bin "$SLUICE_BIN" --work "${PROPERTY_PG_WORK:-$SLUICE_BUILD_DIR/property-pg}" \
  --engine postgres --regress "$here/regressions.txt" --seed "${PROPERTY_SEED:-1}" --count "${PROPERTY_PG_COUNT:-1500}" \
  --seconds "${PROPERTY_PG_SECONDS:-150}" --concurrency 2
