#!/usr/bin/env bash
# Set up, build, and run every test; then build the inputs-facing subset with ASan + UBSan and run it
# there (tools/scripts/sanitize.sh --ci: readers, validator, driver, host state, the tools' error
# paths). NSIM_CI_SANITIZE=0 skips the sanitizer part (a unity build: about 8 minutes on 2 cores).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${NSIM_BUILD_DIR:-$root/build}
"$root/tools/scripts/setup.sh"
"$root/tools/scripts/build.sh"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# The tests' simulated hosts live in a scratch directory, never in the user's ~/.neuron-sim.
NEURON_SIM_HOME=$(mktemp -d)
export NEURON_SIM_HOME
trap 'rm -rf "$NEURON_SIM_HOME"' EXIT
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)"
if [[ ${NSIM_CI_SANITIZE:-1} == 1 ]]; then
  "$root/tools/scripts/sanitize.sh" --ci
fi
