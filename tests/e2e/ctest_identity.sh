#!/usr/bin/env bash
# ctest_identity.sh — OAuth bearer JWTs, protected resource metadata, elicited and administrator
# approvals end to end through the official TypeScript SDK client, against `sluice serve` on its
# own copy of the demo database (the approval tests write to it).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR (e2e_common.sh).
. "$(dirname "$0")/e2e_common.sh"
e2e_prepare identity
e2e_run identity.test.mjs
