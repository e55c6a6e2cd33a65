// `neuron-sim run PROGRAM`: any program - a model built by neuron-build or one assembled by neuron-as -
// loaded and executed through the runtime and the emulated driver (as an application would), reporting
// the load (time, bytes over PCIe), latency over every execution (min/mean/max, p50/p99; device-only
// and end to end: host embedding, PCIe in, engines, PCIe out), the host time all executions took,
// and the last execution's per-engine busy %. BERT models add their batch, copies and throughput.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/container.h"
#include "neuron-sim/machine_selection.h"
#include "neuron-sim/run_command.h"

namespace nsim::tools {

inline constexpr const char* kFunctionalNeedsWeights =
    "--functional needs a model built with weights (this one was built --timing-only)";

// `spec` is machine.resolve()'s (the configuration is read once).
int run_model(const MachineSelection& machine, const RunOptions& options, const config::HostSpec& spec, isa::Container program);

}  // namespace nsim::tools
