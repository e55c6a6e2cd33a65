#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS seconds (default 600), one after another, each from its
# seed corpora, new inputs kept in build-fuzz/<target>/corpus. Prints each target's execution count;
# exits non-zero when a target finds a crash (its reproducer is left in build-fuzz/<target>/).
# Usage: tools/scripts/fuzz.sh [SECONDS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
seconds=${1:-600}
out=${NSIM_FUZZ_BUILD_DIR:-$root/build-fuzz}
status=0
# project:target:seed corpora (relative to the root, separated by commas)
for spec in isa/fuzz:isa_container_reader_fuzzer:isa/fuzz/corpus/container_reader \
            isa/fuzz:isa_assembler_fuzzer:isa/fuzz/corpus/assembler,isa/examples \
            sim/fuzz:config_loader_fuzzer:sim/fuzz/corpus/config_loader \
            kernels/fuzz:checkpoint_reader_fuzzer:kernels/fuzz/corpus/checkpoint_reader; do
  IFS=: read -r project target seeds <<<"$spec"
  IFS=, read -r -a corpora <<<"$seeds"
  build="$out/${project%/fuzz}"
  cmake -S "$root/$project" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" --target "$target" --parallel "$(nproc)" >/dev/null
  work="$out/$target"
  mkdir -p "$work/corpus"
  if (cd "$work" && "$build/$target" -max_total_time="$seconds" -print_final_stats=1 corpus "${corpora[@]/#/$root/}" \
        >"$work/log" 2>&1); then
    echo "$target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$work/log" | tail -1)"
  else
    echo "$target: FOUND A PROBLEM (see $work/log)"
    status=1
  fi
done
exit $status
