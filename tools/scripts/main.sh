#!/usr/bin/env bash
# The main job: set up, build, then build the seed's BERT-large (MRPC shape: seq 128, batch 4 per
# copy, 4 copies on the 4 NeuronCores, fp16 matmuls/attention with fp32 elsewhere, embedding on the
# host) and run it on a simulated inf1.2xlarge through the driver and runtime.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${NSIM_BUILD_DIR:-$root/build}
"$root/tools/scripts/setup.sh"
"$root/tools/scripts/build.sh"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# --timing-only: a timing run needs no weight values, and leaving them out keeps the build quick.
"$build/tools/neuron-build" bert --model bert-large --seq 128 --batch 4 --cores 4 --parallel data \
    --dtype mixed --embedding host --timing-only --instance inf1.2xlarge -o "$build/bert.bin"
"$build/tools/neuron-sim" --instance inf1.2xlarge run "$build/bert.bin"
