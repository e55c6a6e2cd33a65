#!/usr/bin/env bash
# Set up, build, and run every test.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${NSIM_BUILD_DIR:-$root/build}
"$root/tools/scripts/setup.sh"
"$root/tools/scripts/build.sh"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)"
