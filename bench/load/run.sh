#!/usr/bin/env bash
# run.sh — the load benchmark (issue 14): one `sluice serve` over Streamable HTTP on the demo
# DuckDB file, code mode with a hash-chained audit log, driven by drive.mjs with CLIENTS
# concurrent clients sharing TOTAL mixed tools/call requests (curated tool, validate_code,
# execute_code). REPEAT runs, a fresh server each; the JSON keeps every run and the median (and
# spread) of throughput and p99. After each run the audit log must verify.
#
#   SLUICE_BIN=build/sluice bench/load/run.sh
#   env: CLIENTS (default 100), TOTAL (default 10000), REPEAT (default 3), WARMUP_SECONDS
#        (default 2), BENCH_OUT (default bench/results/load.json), LOAD_URL + LOAD_PIDS: drive
#        an already running endpoint instead of starting a server (no audit check then),
#        LOAD_PROTOCOL (default 2025-11-25; 2026-07-28 for replicas behind a round-robin
#        balancer). The three-replica setup of docs/deploy.md: bench/load/replicas.sh.
set -euo pipefail
: "${SLUICE_BIN:?set SLUICE_BIN to the sluice binary}"
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=${BENCH_OUT:-$src/bench/results/load.json}
repeat=${REPEAT:-3}
tmp=$(mktemp -d)
pid=
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

"$SLUICE_BIN" demo-db "$tmp/demo.duckdb" >/dev/null
"$SLUICE_BIN" keygen -o "$tmp/token.key" >/dev/null
cp "$here/sluice.toml" "$tmp/sluice.toml"

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_server: a fresh server and audit log; sets pid and url.
start_server() {
    rm -f "$tmp"/audit.jsonl*
    local port i
    port=$(free_port)
    "$SLUICE_BIN" serve -c "$tmp/sluice.toml" --http "127.0.0.1:$port" --log-level warn \
        >"$tmp/server.log" 2>&1 &
    pid=$!
    url="http://127.0.0.1:$port/mcp"
    for i in $(seq 1 100); do
        curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/healthz" && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$tmp/server.log" >&2; return 1; }
        sleep 0.1
    done
    echo "server did not listen" >&2
    return 1
}

runs=()
for r in $(seq 1 "$repeat"); do
    if [ -n "${LOAD_URL:-}" ]; then
        url=$LOAD_URL
        pids=${LOAD_PIDS:?set LOAD_PIDS with LOAD_URL}
    else
        start_server
        pids=$pid
    fi
    node "$here/drive.mjs" --url "$url" --pid "$pids" --clients "${CLIENTS:-100}" \
        --total "${TOTAL:-10000}" --warmup-seconds "${WARMUP_SECONDS:-2}" --out "$tmp/run.$r.json" \
        --protocol "${LOAD_PROTOCOL:-2025-11-25}"
    if [ -z "${LOAD_URL:-}" ]; then
        kill -TERM "$pid"
        wait "$pid" || { echo "server exited $? after SIGTERM" >&2; exit 1; }
        pid=
        "$SLUICE_BIN" audit verify "$tmp/audit.jsonl" >/dev/null
    fi
    runs+=("$tmp/run.$r.json")
done

jq -s --arg command "SLUICE_BIN=build/sluice bench/load/run.sh" -f "$here/summarize.jq" "${runs[@]}" >"$out"
jq 'del(.runs)' "$out"
echo "wrote $out"
