# e2e_common.sh — sourced by the tests/e2e/ctest_*.sh wrappers that need a fresh work folder:
# checks ctest's environment (SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR), then
#   e2e_prepare NAME   makes $work = $SLUICE_BUILD_DIR/e2e-NAME afresh, with the demo DuckDB
#                      (demo.duckdb) and a token key (token.key), and exports what the node
#                      tests read (SLUICE_E2E_WORK, SLUICE_BIN, SLUICE_SOURCE_DIR, the SDK's bin);
#   e2e_run FILE...    runs node's test runner over FILEs in tests/e2e, one file at a time,
#                      under `timeout $E2E_TIMEOUT` when that is set (it replaces the shell).
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"

e2e_prepare() {
  work="$SLUICE_BUILD_DIR/e2e-$1"
  rm -rf "$work"
  mkdir -p "$work"
  "$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
  "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
  export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
  export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
}

e2e_run() {
  cd "$SLUICE_SOURCE_DIR/tests/e2e"
  exec ${E2E_TIMEOUT:+timeout "$E2E_TIMEOUT"} node --test --test-reporter=spec \
    --test-concurrency=1 "$@"
}
