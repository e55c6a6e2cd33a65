#!/usr/bin/env bash
# Configures and builds the project into build/ (or $NSIM_BUILD_DIR).
# A new build directory (a fresh clone, CI) is set up for the quickest build from scratch: a unity
# build (CMAKE_UNITY_BUILD: each target's sources compiled CMAKE_UNITY_BUILD_BATCH_SIZE at a time, so
# the headers - SystemC, gtest, the project's - are parsed once per batch, not once per file) with
# line tables only (-g1: file, line and function in backtraces and gdb, no local variables). An
# existing build directory keeps the configuration it has: configure your own with
# `cmake -S . -B DIR -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo` for per-file incremental builds (with
# ccache) and full debug information. Measured: README, "Building and testing: CI time".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${NSIM_BUILD_DIR:-$root/build}
from_scratch=()
if [[ ! -f $build/CMakeCache.txt ]]; then
  from_scratch=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${from_scratch[@]}" "$@" >/dev/null
cmake --build "$build" --parallel "$(nproc)"
