#!/usr/bin/env bash
# ctest_toml_corpus.sh — the toml-test 1.0.0 corpus against toml2json (see tests/node/toml_corpus.mjs).
# Corpus: $SLUICE_TOML_TEST_DIR, else $SLUICE_SOURCE_DIR/../shared/testdata/toml-test, else
# /work/shared/testdata/toml-test; read in place.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
exec node "$SLUICE_SOURCE_DIR/tests/node/toml_corpus.mjs" "$SLUICE_BUILD_DIR/toml2json"
