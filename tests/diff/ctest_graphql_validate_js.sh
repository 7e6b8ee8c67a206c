#!/usr/bin/env bash
# ctest_graphql_validate_js.sh — differential test: sluice's GraphQL validation vs graphql-js 16
# `validate` (specifiedRules minus SingleFieldSubscriptions: OverlappingFieldsCanBeMerged included)
# on COUNT (default 20000) seeded operations against examples/graphql/schema.graphql, most of
# them broken on purpose in one rule, some with a typo in a field name, some graphql-js's own
# introspection queries. Accept/reject must agree on every document, FieldsOnCorrectType's,
# KnownTypeNames' and enum values' messages ("Did you mean ...") word for word, and every rule the generator targets must have
# fired. Then GH_COUNT (default 2000) documents against GitHub's GraphQL schema
# (@octokit/graphql-schema, printed as SDL by graphql-js), where coverage is not required.
# Rerun one seed by hand: SEED=7 COUNT=100000 ctest -R graphql_validate_js --output-on-failure
set -eu
src=${SLUICE_SOURCE_DIR:?}
bin=${SLUICE_BUILD_DIR:?}/graphql_validate
if [ ! -f "$src/tests/node/node_modules/graphql/package.json" ]; then
    echo "graphql is not installed under tests/node/node_modules (npm ci in tests/node)" >&2
    exit 1
fi
node "$src/tests/node/graphql_validate_diff.mjs" "$bin" "$src/examples/graphql/schema.graphql" \
    --seed "${SEED:-1}" --count "${COUNT:-20000}"
work=${SLUICE_BUILD_DIR}/graphql-validate-js
mkdir -p "$work"
node --input-type=module -e "
import { githubSdl } from '$src/bench/tokens/surfaces.mjs';
import { writeFileSync } from 'node:fs';
writeFileSync('$work/github.graphql', githubSdl());"
exec node "$src/tests/node/graphql_validate_diff.mjs" "$bin" "$work/github.graphql" \
    --seed "${SEED:-1}" --count "${GH_COUNT:-2000}" --broad
