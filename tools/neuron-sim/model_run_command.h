// `neuron-sim run bert.bin` for a model built by neuron-build: loaded and executed through the
// runtime and the emulated driver (as an application would), reporting load time, latency p50/p99
// (device-only and end to end: host embedding, PCIe in, engines, PCIe out), throughput, per-engine
// busy %. Bare programs (neuron-as) keep the direct path in run_command.cpp.
#pragma once

#include "isa/container.h"
#include "neuron-sim/machine_selection.h"
#include "neuron-sim/run_command.h"

namespace nsim::tools {

inline constexpr const char* kFunctionalNeedsWeights =
    "--functional needs a model built with weights (this one was built --timing-only)";

int run_model(const MachineSelection& machine, const RunOptions& options, const std::vector<uint8_t>& container_bytes);

}  // namespace nsim::tools
