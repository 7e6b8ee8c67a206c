#!/usr/bin/env bash
# ctest_audit_full.sh — issue 14, faults: disk full for the audit log, unprivileged (a file size
# limit makes write() fail with EFBIG as a full disk does): calls refuse, the chain stays clean, a
# restart once space returns recovers (audit_full.test.mjs). Needs prlimit (util-linux).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}"
export SLUICE_BIN
cd "$SLUICE_SOURCE_DIR/tests/faults"
exec node --test --test-reporter=spec audit_full.test.mjs
