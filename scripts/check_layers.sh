#!/usr/bin/env bash
# check_layers.sh — fails when a source file includes a header from a higher (or a sibling) layer.
#
# The layers, highest first (DESIGN.md §2, docs/architecture.md): a file may include headers of
# its own area and of areas strictly below it, never above and never a different area of the
# same rank.
#   cli > transport > surface > querymode > mcp > codemode > lang = policy > exec > syntax >
#   state = token > facts > auth > config > core
# (syntax/: each language's lexer, parser and syntax tree, shared by its front end in lang/ and
# its executor in exec/; no carve-out remains)
# Two more rules keep the pipeline language- and engine-blind: a language's own headers
# (lang/<language>/...) are included only inside lang/, and an engine's header (exec/<engine>.h:
# anything in exec/ but the engine-neutral services executor.h, engines.h (the engine table:
# it names the engines in its .c only), schema.h, bounded.h, fork_gate.h, scratch.h and
# mcp_stdio.h) only inside exec/ and cli/, with no exception: lang/sql reaches DuckDB's
# connection and bind unit through executor.h's bind services.
# Usage: scripts/check_layers.sh [SRC_DIR]   (exit 1 and one line per offending include)
set -euo pipefail
src="${1:-$(dirname "$0")/../src}"
declare -A rank=([core]=0 [sluice]=0 [config]=1 [auth]=2 [facts]=3 [state]=4 [token]=4
  [syntax]=5 [exec]=6 [lang]=7 [policy]=7 [codemode]=8 [mcp]=9 [querymode]=10 [surface]=11
  [transport]=12 [cli]=13)
status=0
while IFS= read -r file; do
  area="${file#"$src"/}"
  area="${area%%/*}"
  if [ -z "${rank[$area]+x}" ]; then
    echo "check_layers: $file: area '$area' has no layer; add it to scripts/check_layers.sh" >&2
    status=1
    continue
  fi
  while IFS=: read -r line inc; do
    to="${inc%%/*}"
    [ "$to" = "$area" ] || [ "$to" = sluice ] && continue
    if [[ "$inc" == lang/*/* && "$area" != lang ]]; then
      echo "$file:$line: only lang/ may include a language's own header ($inc); use lang/registry.h" >&2
      status=1
    fi
    if [[ "$inc" == exec/* && "$inc" != exec/executor.h && "$inc" != exec/engines.h \
          && "$inc" != exec/schema.h \
          && "$inc" != exec/bounded.h && "$inc" != exec/fork_gate.h && "$inc" != exec/scratch.h \
          && "$inc" != exec/mcp_stdio.h \
          && "$area" != exec && "$area" != cli ]]; then
      echo "$file:$line: $area must not name an engine ($inc); use exec/executor.h" >&2
      status=1
    fi
    if [ -z "${rank[$to]+x}" ]; then
      echo "$file:$line: includes \"$inc\" from unknown area '$to'" >&2
      status=1
    elif [ "${rank[$to]}" -ge "${rank[$area]}" ]; then
      echo "$file:$line: $area (layer ${rank[$area]}) must not include $inc (layer ${rank[$to]})" >&2
      status=1
    fi
  done < <(grep -noE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/[^"]+"' "$file" \
           | sed -E 's/^([0-9]+):.*"([^"]+)"/\1:\2/')
done < <(find "$src" -name '*.[ch]' | sort)
exit $status
