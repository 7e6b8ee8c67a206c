#!/usr/bin/env bash
# ctest_load.sh — issue 14, load, the bounded CI version of bench/load/run.sh: CLIENTS concurrent
# HTTP clients share TOTAL mixed tools/call requests (curated tool, validate_code, execute_code)
# against one `sluice serve` with an audit log. Asserts correctness, never speed: 0 errors, every
# call completed, the audit log verifies and the server exits 0 on SIGTERM (run.sh checks both),
# resident memory grows by at most RSS_BOUND_KIB from its baseline (taken WARMUP_SECONDS after
# every kind of call first answered: the server opens DuckDB at the first call that needs it,
# drive.mjs), and the descriptors end where they were at that baseline (at most FD_SLACK more
# while calls were in flight: one connection per client).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
clients=20
total=1500
rss_bound_kib=8192
out="$SLUICE_BUILD_DIR/faults-load.json"
rm -f "$out"
CLIENTS=$clients TOTAL=$total REPEAT=1 WARMUP_SECONDS=2 BENCH_OUT="$out" \
    bash "$SLUICE_SOURCE_DIR/bench/load/run.sh" >/dev/null
jq -e --argjson total "$total" --argjson bound "$rss_bound_kib" --argjson slack "$clients" '
  .runs[0] as $r |
  $r.errors == 0 and $r.completed == $total and
  ($r.resources | all(.rss_growth_kib <= $bound and .fds_end <= .fds_start and
                      .fds_max <= .fds_start + $slack + 8))
' "$out" >/dev/null || {
    echo "FAIL: load run out of bounds (errors, RSS growth > $rss_bound_kib KiB or fd growth):" >&2
    jq 'del(.runs[0].samples)' "$out" >&2
    exit 1
}
jq -c '.runs[0] | {errors, completed, calls_per_second, p99_ms, resources: [.resources[] | {rss_growth_kib, fds_start, fds_max, fds_end}], driver_cpu_cores}' "$out"
echo "PASS: $total calls from $clients clients, 0 errors, RSS and descriptors flat"
