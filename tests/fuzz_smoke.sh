#!/usr/bin/env bash
# A short libFuzzer run as part of the test suite, whatever compiler the main build uses: configures
# a fuzz project (isa/fuzz, sim/fuzz, kernels/fuzz) with clang++ in its own build directory, builds
# TARGET (a unity build: most of a smoke run is its compile) and fuzzes for SECONDS seconds from the
# seed corpora (new inputs go to a scratch corpus, not the repo). For the long runs: tools/scripts/fuzz.sh.
# Usage: fuzz_smoke.sh PROJECT_DIR BUILD_DIR TARGET SECONDS CORPUS...
set -euo pipefail
project=$1 build=$2 target=$3 seconds=$4
shift 4
cmake -S "$project" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build "$build" --target "$target" --parallel 2 >/dev/null
scratch="$build/scratch-corpus-$target"
rm -rf "$scratch"
mkdir -p "$scratch"
"$build/$target" -max_total_time="$seconds" -print_final_stats=1 "$scratch" "$@" 2>&1 | tail -n 20
