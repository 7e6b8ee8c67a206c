#!/usr/bin/env bash
# ctest_toml_smol.sh — differential test: toml2json vs npm smol-toml over the toml-test 1.0.0 corpus
# and 2,500 seeded random documents (tests/node/toml_smol_diff.mjs). Allowed differences:
# tests/diff/toml_smol_allowlist.txt.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
exec node "$SLUICE_SOURCE_DIR/tests/node/toml_smol_diff.mjs" "$SLUICE_BUILD_DIR/toml2json" \
  "$SLUICE_SOURCE_DIR/tests/diff/toml_smol_allowlist.txt" "${TOML_DIFF_COUNT:-2500}" "${TOML_DIFF_SEED:-20240527}"
