#!/usr/bin/env bash
# ctest_property_sqlite.sh — the blocked-field contract as a property on SQLite
# (tests/property/sqlite_canary.mjs): canaries in every cell of customers.ssn and customers.email,
# generated SQLite programs (hex, substr, replace, printf, quote, unicode/char, json_*,
# group_concat, window functions, CTEs, subqueries, rowid, ORDER BY / WHERE bits, error texts)
# through `sluice serve --stdio` with engine "sqlite", every reply, error, stderr and audit line
# scanned. Bounded for CI: SQLITE_CANARY_COUNT programs (default 150) or SQLITE_CANARY_SECONDS
# (default 60). Long run:
#   SQLITE_CANARY_COUNT=20000 SQLITE_CANARY_SECONDS=0 SQLITE_CANARY_SEED=7 bash tests/property/ctest_property_sqlite.sh
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
command -v sqlite3 >/dev/null || { echo "ctest_property_sqlite: no sqlite3 (Debian package sqlite3)" >&2; exit 1; }
exec node "$SLUICE_SOURCE_DIR/tests/property/sqlite_canary.mjs" --bin "$SLUICE_BIN" \
  --work "${SQLITE_CANARY_WORK:-$SLUICE_BUILD_DIR/property-sqlite}" --seed "${SQLITE_CANARY_SEED:-1}" \
  --count "${SQLITE_CANARY_COUNT:-150}" --seconds "${SQLITE_CANARY_SECONDS:-60}"
