#!/usr/bin/env bash
# ctest_graphql_js.sh — differential test: sluice's GraphQL parser and printer vs graphql-js 16.
#
# Runs tests/node/graphql_diff.mjs: the spec examples, then COUNT (default 50000) seeded
# documents (SEED, default 1), batched through one tests/programs/graphql_print process per
# 5000. Accept/reject, the printed (canonical) form and every error message with its line and
# column must agree; a disagreement prints the shrunk document.
# Rerun one seed by hand: SEED=7 COUNT=200000 ctest -R graphql_js --output-on-failure
set -euo pipefail
src=${SLUICE_SOURCE_DIR:?}
bin=${SLUICE_BUILD_DIR:?}/graphql_print
if [ ! -f "$src/tests/node/node_modules/graphql/package.json" ]; then
    echo "graphql is not installed under tests/node/node_modules (npm ci in tests/node)" >&2
    exit 1
fi
exec node "$src/tests/node/graphql_diff.mjs" "$bin" --seed "${SEED:-1}" --count "${COUNT:-50000}"
