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
# Each plant goes into a fresh copy: one that crosses the old order's ties (exec = facts,
# mcp above querymode) and the plain upward include.
plants=("exec/executor.h:codemode/codemode.h" "facts/codefacts.h:exec/executor.h"
        "mcp/server.h:querymode/querymode.h" "lang/registry.h:codemode/codemode.h")
for plant in "${plants[@]}"; do
  rm -rf "$tmp/src"
  cp -r "$src" "$tmp/src"
  printf '#include "%s"\n' "${plant#*:}" >> "$tmp/src/${plant%%:*}"
  if bash "$SLUICE_SOURCE_DIR/scripts/check_layers.sh" "$tmp/src" 2>/dev/null; then
    echo "ctest_layers: check_layers.sh missed ${plant%%:*} -> ${plant#*:}" >&2
    exit 1
  fi
done
echo "layers: ${#plants[@]} planted violations caught"
