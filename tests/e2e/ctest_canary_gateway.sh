#!/usr/bin/env bash
# ctest_canary_gateway.sh — the canary property test for plans through the gateway (issue 25):
# generated plans that carry blocked fields' canaries every way the language allows, run by the
# official SDK client against `sluice serve` in front of the cost-coach API, in strip and refuse
# mode; no canary form in any response or audit line (tests/e2e/canary_gateway.mjs). Bounded
# here (CANARY_COUNT plans per mode, default 60); the long run is `make property-js-gateway`.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="${CANARY_WORK:-$SLUICE_BUILD_DIR/e2e-canary}"
mkdir -p "$work"
work="$(cd "$work" && pwd)" # the run cds to tests/e2e
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR SLUICE_BUILD_DIR
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node canary_gateway.mjs "${CANARY_COUNT:-60}" "${CANARY_SEED:-1}"
