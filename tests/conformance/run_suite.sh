# run_suite.sh — sourced by the ctest_conformance*.sh scripts: starts the sluice fixture server
# on a free loopback port and runs one version of the official conformance suite against it.
#
#   run_suite OUT_DIR PACKAGE_DIR BASELINE SUITE_ARGS...
# PACKAGE_DIR is the suite's npm package under tests/node/node_modules (called by path: 0.1.x and
# the 0.2.x alias install the same `conformance` bin name). Exits the script with the suite's
# status: non-zero on any failure not in BASELINE, or a stale BASELINE entry.
set -u
. "$SLUICE_SOURCE_DIR/tests/e2e/fixture.sh"

run_suite() {
    local out="$1" package="$2" baseline="$3"
    shift 3
    rm -rf "$out"
    mkdir -p "$out"
    # The suite needs Node 22 (fs.globSync); tests/node ships it as the `node` bin.
    export PATH="$NODE_BIN_DIR:$PATH"
    case "$(node --version)" in
    v22.*) ;;
    *) echo "conformance needs Node 22, found $(node --version) (npm ci in tests/node?)" >&2; exit 1 ;;
    esac
    local port
    port=$(fixture_free_port)
    # Server settings from the conformance config (its Origin/Host defaults included); only the
    # listen address is overridden, with a free port.
    fixture_start "$out/server.log" "$FIXTURE_BIN" \
        --config "$SLUICE_SOURCE_DIR/tests/conformance/conformance.toml" --http "127.0.0.1:$port"
    trap fixture_stop EXIT
    fixture_wait_http "$port" "$FIXTURE_PID" || { cat "$out/server.log" >&2; exit 1; }
    # A localhost URL: the DNS-rebinding scenario only judges localhost servers.
    (cd "$SLUICE_SOURCE_DIR/tests/node" &&
        node "node_modules/$package/dist/index.js" server --url "http://localhost:$port/mcp" \
            "$@" --expected-failures "$baseline" -o "$out/results") >"$out/suite.log" 2>&1
    local rc=$?
    cat "$out/suite.log"
    echo "---- server log (tail) ----"
    tail -n 40 "$out/server.log"
    grep -E '^Total: ' "$out/suite.log" >/dev/null || { echo "suite produced no Total line" >&2; exit 1; }
    exit $rc
}
