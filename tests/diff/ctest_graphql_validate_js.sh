#!/usr/bin/env bash
# ctest_graphql_validate_js.sh — differential test: sluice's GraphQL validation vs graphql-js 16
# `validate` (specifiedRules minus SingleFieldSubscriptions: OverlappingFieldsCanBeMerged included)
# on COUNT (default 20000) seeded operations against examples/graphql/schema.graphql, most of
# them broken on purpose in one rule. Accept/reject must agree on every document, and every
# rule the generator targets must have fired.
# Rerun one seed by hand: SEED=7 COUNT=100000 ctest -R graphql_validate_js --output-on-failure
set -eu
src=${SLUICE_SOURCE_DIR:?}
bin=${SLUICE_BUILD_DIR:?}/graphql_validate
if [ ! -f "$src/tests/node/node_modules/graphql/package.json" ]; then
    echo "graphql is not installed under tests/node/node_modules (npm ci in tests/node)" >&2
    exit 1
fi
exec node "$src/tests/node/graphql_validate_diff.mjs" "$bin" "$src/examples/graphql/schema.graphql" \
    --seed "${SEED:-1}" --count "${COUNT:-20000}"
