# fixture.sh — shared shell helpers for the script tests that drive an MCP server over HTTP
# (conformance, e2e, bench smoke): pick a free loopback port, start a server in the background,
# wait until it accepts connections, stop it. Sourced, never run.
#
# Callers set SLUICE_SOURCE_DIR and SLUICE_BUILD_DIR (ctest does) before sourcing.

: "${SLUICE_SOURCE_DIR:?set SLUICE_SOURCE_DIR}"
: "${SLUICE_BUILD_DIR:?set SLUICE_BUILD_DIR}"

FIXTURE_BIN="$SLUICE_BUILD_DIR/sluice_conformance"
NODE_BIN_DIR="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin"

# Prints a TCP port that was free on 127.0.0.1 a moment ago.
fixture_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# fixture_wait_http PORT PID: waits (10 s at most) until something answers on PORT.
fixture_wait_http() {
    local port=$1 pid=$2 i
    for i in $(seq 1 100); do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "server (pid $pid) exited before listening on $port" >&2
            return 1
        fi
        if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; then
            return 0
        fi
        sleep 0.1
    done
    echo "server did not listen on $port within 10 s" >&2
    return 1
}

# fixture_start LOGFILE CMD ARGS...: starts CMD in the background, sets FIXTURE_PID.
fixture_start() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 &
    FIXTURE_PID=$!
}

# fixture_stop: stops the server started by fixture_start (only that pid).
fixture_stop() {
    if [ -n "${FIXTURE_PID:-}" ] && kill -0 "$FIXTURE_PID" 2>/dev/null; then
        kill "$FIXTURE_PID" 2>/dev/null
        wait "$FIXTURE_PID" 2>/dev/null || true # killed: non-zero by design
    fi
    FIXTURE_PID=
}
