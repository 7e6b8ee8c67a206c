#!/usr/bin/env bash
# fuzz.sh [SECONDS] — builds every tests/fuzz/fuzz_*.c as a libFuzzer target (clang, ASan+UBSan)
# and runs each for SECONDS (default 45) on a scratch copy of its corpus, plus the seed folders
# tests/fuzz/corpus/<target>.seed_dirs names, read in place. A crash, leak or timeout fails; the
# reproducer is left in build-fuzz/findings/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${FUZZ_SECONDS:-45}}
# clang++ too: the bind-once unit (src/exec/duckdb_plan.cpp) is C++ and is instrumented alike.
cmake -S . -B build-fuzz -DSLUICE_FUZZ=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null
# Only the fuzz targets: with the library instrumented for libFuzzer, ordinary programs would
# need its runtime too.
# (those this configuration defines: fuzz_duckdb_bind_tree needs -DSLUICE_DUCKDB_CPP=ON)
defined=$(cmake --build build-fuzz --target help | sed -n 's/^\.\.\. //p')
targets=$(for f in tests/fuzz/fuzz_*.c; do n=$(basename "$f" .c)
  if grep -qx "$n" <<<"$defined"; then echo "$n"; fi; done)
cmake --build build-fuzz -j "$(nproc)" --target $targets >/dev/null
status=0
for name in $targets; do
  work=build-fuzz/work/$name findings=build-fuzz/findings/$name
  rm -rf "$work" && mkdir -p "$work" "$findings"
  [ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$work/"
  # Seed folders read in place (libFuzzer writes new inputs to the first folder only).
  seeds=()
  if [ -f "tests/fuzz/corpus/$name.seed_dirs" ]; then
    while read -r dir; do seeds+=("$PWD/$dir"); done < <(grep -v '^#' "tests/fuzz/corpus/$name.seed_dirs")
  fi
  echo "fuzz: $name for ${secs}s"
  if ! (cd "$findings" && ASAN_OPTIONS=detect_leaks=1 "../../$name" "../../../$work" "${seeds[@]}" \
        -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        >"../$name.log" 2>&1); then
    echo "fuzz: $name FAILED; see build-fuzz/findings/$name.log and the crash-* file in $findings" >&2
    tail -30 "build-fuzz/findings/$name.log" >&2
    status=1
  fi
done
exit $status
