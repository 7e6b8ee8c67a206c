#!/usr/bin/env bash
# lint.sh — banned functions (STYLE.md §11) and clang-format conformance over our C sources.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
files=$(git ls-files '*.c' '*.h')
banned='\b(sprintf|vsprintf|strcpy|strcat|strncpy|strncat|gets|atoi|atol|strtok)[[:space:]]*\('
if grep -nE "$banned" $files; then
  echo "lint: banned function used (see STYLE.md: use snprintf, sluice_buf, strtol...)" >&2
  status=1
fi
if command -v clang-format >/dev/null; then
  if ! clang-format --dry-run --Werror $files 2>/dev/null; then
    echo "lint: files not clang-formatted; run: clang-format -i \$(git ls-files '*.c' '*.h')" >&2
    status=1
  fi
fi
exit $status
