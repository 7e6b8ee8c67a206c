#!/usr/bin/env bash
# bootstrap.sh — installs what sluice needs on a Debian machine, idempotently.
#   Debian -dev packages with apt-get (only the missing ones);
#   DuckDB from npm into third_party/duckdb (git-ignored): libduckdb.so, and duckdb.h plus the
#   C++ headers (cpp/src/include, for the bind-once unit src/exec/duckdb_plan.cpp) of the very
#   same release: DuckDB's C++ API has no stable ABI, so CMake refuses a mixed pair;
#   the Node test tools (MCP SDK, conformance suite, oracles, playwright-core for the console
#   test, which drives Debian's chromium: no browser download) into tests/node/node_modules.
# Usage: scripts/bootstrap.sh [--no-node | --demo | --list-packages demo|full]
#   --no-node  everything but the Node test tools
#   --demo     only what `make demo` needs to build and run sluice (the libraries it links, a
#              compiler, cmake, npm for DuckDB): no PostgreSQL server, valgrind, clang tools,
#              gnuplot, chromium nor the Node test tools; and quiet unless it installs something
#   --list-packages MODE  prints the Debian packages that mode installs, one a line, and installs
#              nothing (tests/lint/ctest_deps.sh checks every library a build target links
#              against them: demo for the sluice binary, full for the rest)
set -euo pipefail
cd "$(dirname "$0")/.."

# The 1.4 LTS line: the one release whose library and C++ headers npm ships as a matching pair
# (issue 23), so CMake builds the bind-once C++ unit against it (docs/architecture.md "Binding
# once"). Its idle RSS equals 1.5.6's on a fresh machine (18.1 MB, tests/e2e/lazy_open.test.mjs).
DUCKDB_LIB_PKG="@duckdb/node-bindings-linux-x64@1.4.4-r.4"
DUCKDB_HDR_PKG="duckdb@1.4.4"
# chromium: the admin console's browser test (tests/console, playwright-core drives it);
# mmdebstrap: the fresh Debian root of CI's clean room (scripts/cleanroom.sh).
# sqlite3: the SQLite canary property builds its database with the CLI.
# graphviz, universal-ctags: docs/architecture.md's pictures (scripts/arch_graph.py) and the
# structure counts (scripts/arch_counts.py).
APT_PACKAGES=(build-essential cmake pkg-config clang libclang-rt-14-dev
  libjansson-dev libsodium-dev libssl-dev libmicrohttpd-dev libcurl4-openssl-dev libjwt-dev
  libpg-query-dev libsqlite3-dev sqlite3 libpq-dev postgresql libyaml-dev libcmocka-dev
  libhiredis-dev libicu-dev redis-server nginx
  valgrind clang-format clang-tidy cppcheck curl python3 gnuplot-nox
  chromium mmdebstrap graphviz universal-ctags)

# The sluice binary links every library of the full list (hiredis too: the Redis state store is
# compiled in, not a build option, so one binary serves one replica or many).
DEMO_PACKAGES=(build-essential cmake pkg-config libjansson-dev libsodium-dev libssl-dev libmicrohttpd-dev
  libcurl4-openssl-dev libjwt-dev libpg-query-dev libsqlite3-dev libpq-dev libyaml-dev
  libhiredis-dev libicu-dev)
mode=${1:-}
if [ "$mode" = --list-packages ]; then
  case ${2:-} in
    demo) printf '%s\n' "${DEMO_PACKAGES[@]}" ;;
    full) printf '%s\n' "${APT_PACKAGES[@]}" ;;
    *) echo "bootstrap: --list-packages takes demo or full, not '${2:-}'" >&2; exit 2 ;;
  esac
  exit 0
fi
if [ "$mode" = --demo ]; then
  APT_PACKAGES=("${DEMO_PACKAGES[@]}")
fi

say() { printf 'bootstrap: %s\n' "$*" >&2; }

missing=()
# Node may come from elsewhere (nodesource ships npm inside nodejs): only ask apt when absent.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq || say "apt-get update failed; trying install anyway"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

duck=third_party/duckdb
cpp_include=package/src/duckdb/src/include
# the one third-party include tree DuckDB's headers the unit uses reach (string functions)
cpp_utf8=package/src/duckdb/third_party/utf8proc/include
if [ ! -f "$duck/lib/libduckdb.so" ] || [ ! -f "$duck/include/duckdb.h" ] \
   || [ ! -f "$duck/cpp/src/include/duckdb/main/connection.hpp" ] \
   || [ "$(cat "$duck/VERSION" 2>/dev/null)" != "$DUCKDB_LIB_PKG $DUCKDB_HDR_PKG" ]; then
  say "fetching DuckDB ($DUCKDB_LIB_PKG, headers from $DUCKDB_HDR_PKG)"
  rm -rf "$duck" && mkdir -p "$duck/lib" "$duck/include" "$duck/cpp/src" \
    "$duck/cpp/third_party/utf8proc" "$duck/tmp"
  (cd "$duck/tmp" && npm pack --silent "$DUCKDB_LIB_PKG" "$DUCKDB_HDR_PKG" >/dev/null)
  tar -xzf "$duck"/tmp/duckdb-node-bindings-linux-x64-*.tgz -C "$duck/tmp" package/libduckdb.so
  mv "$duck/tmp/package/libduckdb.so" "$duck/lib/"
  rm -rf "$duck/tmp/package"
  # Only include trees (8 MB of the package's full source).
  tar -xzf "$duck"/tmp/duckdb-"${DUCKDB_HDR_PKG#duckdb@}".tgz -C "$duck/tmp" "$cpp_include" \
    "$cpp_utf8"
  cp "$duck/tmp/$cpp_include/duckdb.h" "$duck/include/"
  mv "$duck/tmp/$cpp_include" "$duck/cpp/src/include"
  mv "$duck/tmp/$cpp_utf8" "$duck/cpp/third_party/utf8proc/include"
  rm -rf "$duck/tmp"
  echo "$DUCKDB_LIB_PKG $DUCKDB_HDR_PKG" > "$duck/VERSION"
fi

if [ "$mode" != "--no-node" ] && [ "$mode" != "--demo" ] && [ -f tests/node/package.json ]; then
  stamp=tests/node/node_modules/.sluice-lock
  if [ ! -f "$stamp" ] || ! cmp -s tests/node/package-lock.json "$stamp"; then
    say "installing Node test tools (tests/node)"
    (cd tests/node && npm ci --no-audit --no-fund --loglevel=error)
    cp tests/node/package-lock.json "$stamp"
  fi
fi
[ "$mode" = --demo ] || say "ready"
