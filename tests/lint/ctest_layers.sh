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
# The checker must itself catch a violation: plant some and expect each to fail.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each plant is a one-file tree (the checker reads only what it is given, so this is as good as
# a planted copy of src/ and takes no time): the plain upward include and two that cross the old
# order's ties (exec = facts, mcp above querymode).
plants=("exec/executor.h:codemode/codemode.h" "facts/codefacts.h:exec/executor.h"
        "mcp/server.h:querymode/querymode.h" "lang/registry.h:codemode/codemode.h")
for plant in "${plants[@]}"; do
  rm -rf "$tmp/src"
  mkdir -p "$tmp/src/$(dirname "${plant%%:*}")"
  printf '#include "%s"\n' "${plant#*:}" > "$tmp/src/${plant%%:*}"
  if bash "$SLUICE_SOURCE_DIR/scripts/check_layers.sh" "$tmp/src" 2>/dev/null; then
    echo "ctest_layers: check_layers.sh missed ${plant%%:*} -> ${plant#*:}" >&2
    exit 1
  fi
done
# and a clean one-file tree passes, so the plants fail for their include, not for the setup
rm -rf "$tmp/src" && mkdir -p "$tmp/src/exec"
printf '#include "facts/codefacts.h"\n' > "$tmp/src/exec/executor.h"
bash "$SLUICE_SOURCE_DIR/scripts/check_layers.sh" "$tmp/src"
echo "layers: ${#plants[@]} planted violations caught, a clean include passed"
