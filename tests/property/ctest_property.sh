#!/usr/bin/env bash
# ctest_property.sh — the blocked-field contract as a property (issue 17; tests/property/run.mjs):
# generated SQL through `sluice serve --stdio` on a canary copy of the demo database, every reply
# and log line scanned for canaries, escapes watched, over-blocking measured per construct.
# Bounded for CI: PROPERTY_COUNT statements (default 8000) or PROPERTY_SECONDS (default 270),
# whichever comes first, after the seeds in regressions.txt (seeds that once found
# counterexamples) and a check that the checker recovers canaries from unguarded attacks.
# Long run: `make property N=1000000`.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
here="$SLUICE_SOURCE_DIR/tests/property"
exec node "$here/run.mjs" --bin "$SLUICE_BIN" --work "$SLUICE_BUILD_DIR/property" \
  --regress "$here/regressions.txt" --power "${PROPERTY_POWER:-400}" \
  --seed "${PROPERTY_SEED:-1}" --count "${PROPERTY_COUNT:-8000}" --seconds "${PROPERTY_SECONDS:-270}"
