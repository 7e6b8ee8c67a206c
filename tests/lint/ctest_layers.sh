#!/usr/bin/env bash
# ctest_layers.sh — the layering rules of docs/architecture.md, as a test: no include from a
# lower layer to a higher one (scripts/check_layers.sh), and the pipeline names no language.
set -euo pipefail
src="${SLUICE_SOURCE_DIR:?}/src"
bash "$SLUICE_SOURCE_DIR/scripts/check_layers.sh" "$src"
if grep -rn 'lang/sql' "$src/codemode"; then
  echo "ctest_layers: src/codemode names the SQL front end; dispatch through lang/registry.h" >&2
  exit 1
fi
# The checker must itself catch a violation: plant one in a copy and expect a failure.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/src"
printf '#include "codemode/codemode.h"\n' >> "$tmp/src/exec/executor.h"
if bash "$SLUICE_SOURCE_DIR/scripts/check_layers.sh" "$tmp/src" 2>/dev/null; then
  echo "ctest_layers: check_layers.sh missed an exec -> codemode include" >&2
  exit 1
fi
echo "layers: 1 passed, 0 failed"
