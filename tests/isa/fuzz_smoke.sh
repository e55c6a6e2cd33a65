#!/usr/bin/env bash
# A short libFuzzer run on the container reader as part of the test suite, whatever compiler the
# main build uses: configures isa/fuzz with clang++ in its own build directory, builds the target and
# fuzzes for SECONDS seconds from the seed corpus (new inputs go to a scratch corpus, not the repo).
# Usage: fuzz_smoke.sh SOURCE_DIR BUILD_DIR SECONDS
set -euo pipefail
src=$1 build=$2 seconds=$3
cmake -S "$src/isa/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --parallel 2 >/dev/null
rm -rf "$build/scratch-corpus"
mkdir -p "$build/scratch-corpus"
"$build/isa_container_fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
  "$build/scratch-corpus" "$src/isa/fuzz/corpus" 2>&1 | tail -n 20
