#!/usr/bin/env bash
# The main job: set up, build, and run the simulated machine.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${NSIM_BUILD_DIR:-$root/build}
"$root/tools/scripts/setup.sh"
"$root/tools/scripts/build.sh"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
"$build/tools/neuron-sim" --instance inf1.2xlarge info
