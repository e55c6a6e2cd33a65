#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS seconds (default 600), one after another, each from its
# seed corpus, new inputs kept in build-fuzz/<target>/corpus. Prints each target's execution count;
# exits non-zero when a target finds a crash (its reproducer is left in build-fuzz/<target>/).
# Usage: tools/scripts/fuzz.sh [SECONDS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
seconds=${1:-600}
out=${NSIM_FUZZ_BUILD_DIR:-$root/build-fuzz}
status=0
for spec in isa/fuzz:isa_container_reader_fuzzer:container_reader isa/fuzz:isa_assembler_fuzzer:assembler \
            sim/fuzz:config_loader_fuzzer:config_loader kernels/fuzz:checkpoint_reader_fuzzer:checkpoint_reader; do
  IFS=: read -r project target corpus <<<"$spec"
  build="$out/${project%/fuzz}"
  cmake -S "$root/$project" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" --target "$target" --parallel "$(nproc)" >/dev/null
  work="$out/$target"
  mkdir -p "$work/corpus"
  if (cd "$work" && "$build/$target" -max_total_time="$seconds" -print_final_stats=1 corpus "$root/$project/corpus/$corpus" \
        >"$work/log" 2>&1); then
    echo "$target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$work/log" | tail -1)"
  else
    echo "$target: FOUND A PROBLEM (see $work/log)"
    status=1
  fi
done
exit $status
