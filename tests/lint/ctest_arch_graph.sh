#!/usr/bin/env bash
# ctest_arch_graph.sh — docs/architecture.md's pictures are what the includes draw today: the DOT
# text scripts/arch_graph.py generates equals the checked-in docs/img/*.dot (compared as text, no
# graphviz needed), and src/ has no include circle. Then the check must itself fail on a tree
# with one arrow more, and on one with a circle (two headers that include each other).
# Env (set by ctest): SLUICE_SOURCE_DIR.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}"
python3 "$SLUICE_SOURCE_DIR/scripts/arch_graph.py" --check "$SLUICE_SOURCE_DIR"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts" "$tmp/docs/img"
cp -r "$SLUICE_SOURCE_DIR/src" "$tmp/src"
cp "$SLUICE_SOURCE_DIR/scripts/check_layers.sh" "$tmp/scripts/"
cp "$SLUICE_SOURCE_DIR"/docs/img/*.dot "$tmp/docs/img/"
python3 "$SLUICE_SOURCE_DIR/scripts/arch_graph.py" --check "$tmp" # the copy passes as it is
printf '#include "cli/cli.h"\n' > "$tmp/src/core/zz_planted.c"   # core -> cli: a new arrow
if python3 "$SLUICE_SOURCE_DIR/scripts/arch_graph.py" --check "$tmp" 2>/dev/null; then
  echo "ctest_arch_graph: --check missed an arrow the checked-in layers.dot does not have" >&2
  exit 1
fi
rm "$tmp/src/core/zz_planted.c"
printf '#include "core/zz_planted_b.h"\n' > "$tmp/src/core/zz_planted_a.h" # a circle inside core/:
printf '#include "core/zz_planted_a.h"\n' > "$tmp/src/core/zz_planted_b.h" # no arrow changes
if python3 "$SLUICE_SOURCE_DIR/scripts/arch_graph.py" --check "$tmp" 2>/dev/null; then
  echo "ctest_arch_graph: --check missed the include circle core/zz_planted_a <-> core/zz_planted_b" >&2
  exit 1
fi
