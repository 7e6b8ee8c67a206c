#!/usr/bin/env bash
# ctest_conformance_2026.sh — runs the official MCP conformance suite's pre-release line
# (@modelcontextprotocol/conformance 0.2.0-alpha.12, npm alias conformance-next) with
# --requirements 2026-07-28 (the 37 server scenarios frozen for that revision) against the same
# sluice fixture server, on the same endpoint that serves 2025-11-25, over Streamable
# HTTP (by path: the 0.2.x pre-release, alias conformance-next, installs the same `conformance`
# bin name). Fails on any failure not listed in baseline-2026.yml, and on baseline entries that now pass
# (the suite reports them as stale), so the baseline only ever shrinks.
#
# Env (set by ctest): SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR. Results: $SLUICE_BUILD_DIR/conformance-2026/.
set -u
. "$SLUICE_SOURCE_DIR/tests/e2e/fixture.sh"

out="$SLUICE_BUILD_DIR/conformance-2026"
rm -rf "$out"
mkdir -p "$out"

# The suite needs Node 22 (fs.globSync); tests/node ships it as the `node` bin.
export PATH="$NODE_BIN_DIR:$PATH"
case "$(node --version)" in
v22.*) ;;
*) echo "conformance needs Node 22, found $(node --version) (npm ci in tests/node?)" >&2; exit 1 ;;
esac

port=$(fixture_free_port)
# Server settings from the conformance config (its Origin/Host defaults included); only the
# listen address is overridden, with a free port.
fixture_start "$out/server.log" "$FIXTURE_BIN" \
    --config "$SLUICE_SOURCE_DIR/tests/conformance/conformance.toml" --http "127.0.0.1:$port"
trap fixture_stop EXIT
fixture_wait_http "$port" "$FIXTURE_PID" || { cat "$out/server.log" >&2; exit 1; }

# A localhost URL: the DNS-rebinding scenario only judges localhost servers.
(cd "$SLUICE_SOURCE_DIR/tests/node" &&
    node node_modules/conformance-next/dist/index.js server \
        --url "http://localhost:$port/mcp" \
        --requirements 2026-07-28 \
        --expected-failures "$SLUICE_SOURCE_DIR/tests/conformance/baseline-2026.yml" \
        -o "$out/results") >"$out/suite.log" 2>&1
rc=$?
cat "$out/suite.log"
echo "---- server log (tail) ----"
tail -n 40 "$out/server.log"
grep -E '^Total: ' "$out/suite.log" >/dev/null || { echo "suite produced no Total line" >&2; exit 1; }
exit $rc
