#!/usr/bin/env bash
# ctest_property_graphql.sh — the blocked-field contract as a property on GraphQL
# (tests/property/graphql_canary.mjs): a graphql-js upstream started here whose blocked fields
# (Person.ssn and Person.email on the interface, Employee.salary) hold canaries; generated
# operations (aliases, fragments on interfaces and the union, variables and defaults,
# @include/@skip, introspection, connections and cursors, filters and orders naming blocked
# fields, resolver and serialisation errors quoting values, extensions, partial data) through
# `sluice serve --stdio` in strip and refuse mode and against a twin upstream with other
# canaries; every reply, error, stderr and audit line scanned, the twins' answers compared.
# Bounded for CI: GRAPHQL_CANARY_COUNT operations (default 400) or GRAPHQL_CANARY_SECONDS
# (default 35). Long run:
#   GRAPHQL_CANARY_COUNT=20000 GRAPHQL_CANARY_SECONDS=0 GRAPHQL_CANARY_SEED=7 bash tests/property/ctest_property_graphql.sh
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
exec node "$SLUICE_SOURCE_DIR/tests/property/graphql_canary.mjs" --bin "$SLUICE_BIN" \
  --work "${GRAPHQL_CANARY_WORK:-$SLUICE_BUILD_DIR/property-graphql}" --seed "${GRAPHQL_CANARY_SEED:-1}" \
  --count "${GRAPHQL_CANARY_COUNT:-400}" --seconds "${GRAPHQL_CANARY_SECONDS:-35}"
