#!/usr/bin/env bash
# ctest_install.sh — `make install` into a DESTDIR, then the installed tree moved elsewhere and
# run from another directory: --version, and `serve --db ... --stdio` answering initialize
# (the binary finds its DuckDB copy through $ORIGIN, never the build tree); the man page, the
# completion, the systemd unit (with its hardening) and the LICENSE are installed.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$SLUICE_SOURCE_DIR" install BUILD="$SLUICE_BUILD_DIR" PREFIX=/opt/sl DESTDIR="$tmp/dest" \
    -o build >/dev/null || fail "make install"
mv "$tmp/dest/opt/sl" "$tmp/moved"
bin="$tmp/moved/bin/sluice"
[ -x "$bin" ] || fail "no installed binary"
readelf -d "$bin" | grep -q "$SLUICE_BUILD_DIR\|third_party" && fail "rpath points into the build tree"
v=$(cd / && "$bin" --version) || fail "installed --version"
case "$v" in "sluice "*"DuckDB v"*) ;; *) fail "--version: $v" ;; esac
for f in share/man/man1/sluice.1 share/bash-completion/completions/sluice \
         lib/systemd/system/sluice.service share/doc/sluice/LICENSE; do
    [ -s "$tmp/moved/$f" ] || fail "not installed: $f"
done
grep -q '^\.SS serve' "$tmp/moved/share/man/man1/sluice.1" || fail "man page lacks serve"
for d in ProtectSystem=strict NoNewPrivileges=yes PrivateTmp=yes; do
    grep -q "^$d" "$tmp/moved/lib/systemd/system/sluice.service" || fail "unit lacks $d"
done
"$SLUICE_BIN" demo-db "$tmp/demo.duckdb" >/dev/null
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
out=$(cd / && printf '%s\n' "$init" | timeout 20 "$bin" serve --db "$tmp/demo.duckdb" --stdio 2>"$tmp/err") ||
    fail "installed serve: $(cat "$tmp/err")"
echo "$out" | jq -e '.id == 1 and .result.serverInfo.name == "sluice"' >/dev/null || fail "initialize: $out"
echo "install ok"
