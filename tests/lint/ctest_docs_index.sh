#!/usr/bin/env bash
# ctest_docs_index.sh — the README's docs index (the paragraph that starts with "Docs") links every
# docs/*.md, and every docs/ link in it names a file that exists; then the check must itself fail
# on an index that misses a page.
# Env (set by ctest): SLUICE_SOURCE_DIR.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}"

# check README DOCS_DIR: prints one line per problem; exit 1 when there is one.
check() {
    local readme=$1 docs=$2 index f name bad=0
    index=$(awk '/^Docs[ :(]/{f=1} f && /^$/{exit} f' "$readme")
    [ -n "$index" ] || { echo "no paragraph starting with 'Docs' in $readme"; return 1; }
    for f in "$docs"/*.md; do
        name=$(basename "$f")
        grep -qF "](docs/$name)" <<<"$index" ||
            { echo "$readme: the docs index does not link docs/$name (add [title](docs/$name))"; bad=1; }
    done
    while read -r name; do
        [ -f "$docs/$name" ] || { echo "$readme: the docs index links docs/$name, which does not exist"; bad=1; }
    done < <(grep -oE '\]\(docs/[^)]+\)' <<<"$index" | sed 's/^](docs\///; s/)$//')
    return $bad
}

check "$SLUICE_SOURCE_DIR/README.md" "$SLUICE_SOURCE_DIR/docs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/docs"
cp "$SLUICE_SOURCE_DIR"/docs/*.md "$tmp/docs/"
echo "# new page" >"$tmp/docs/zz-new-page.md"
if out=$(check "$SLUICE_SOURCE_DIR/README.md" "$tmp/docs"); then
    echo "ctest_docs_index: an unlinked docs/zz-new-page.md passed" >&2
    exit 1
fi
grep -q 'does not link docs/zz-new-page.md' <<<"$out" || { echo "ctest_docs_index: wrong message: $out" >&2; exit 1; }
echo "docs_index: 2 passed, 0 failed"
