#!/usr/bin/env bash
# ctest_deps.sh — every library and build tool of every target comes from a Debian package that
# the matching bootstrap mode installs (scripts/check_deps.sh: --demo for the sluice binary, the
# full bootstrap for the rest), so `make demo` and `make test` build on a fresh machine; then the
# check must itself fail when the demo's list loses a library the binary links (libpq-dev).
# Env (set by ctest): SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
check="$SLUICE_SOURCE_DIR/scripts/check_deps.sh"
bash "$check" "$SLUICE_BUILD_DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$SLUICE_SOURCE_DIR/scripts/bootstrap.sh" --list-packages demo | grep -vx libpq-dev >"$tmp/demo"
if out=$(CHECK_DEPS_DEMO="$tmp/demo" bash "$check" "$SLUICE_BUILD_DIR" 2>&1); then
    echo "ctest_deps: check_deps.sh passed a demo list without libpq-dev" >&2
    exit 1
fi
grep -q 'target sluice uses .*libpq.so from package libpq-dev.*add libpq-dev to DEMO_PACKAGES' <<<"$out" || {
    echo "ctest_deps: the failure does not name libpq-dev and the fix: $out" >&2
    exit 1
}
echo "deps: 2 passed, 0 failed"
