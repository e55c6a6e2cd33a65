// `neuron-sim serve bert.bin --clients N --requests M`: a model server on the simulated instance,
// one model copy per NeuronCore, requests batched opportunistically up to the compiled batch,
// closed-loop clients; reports inferences/s and latency p50/p90/p99 in simulated time. The time of
// one execution comes from a simulated run of the program through the runtime (cached: a padded
// batch always has the compiled shape); the queueing is tools/common/serving_simulation.
#pragma once

#include <cstdint>
#include <string>

#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

struct ServeOptions {
    std::string program;
    uint32_t clients = 48;
    uint32_t requests = 128;          // per client
    double max_batch_delay_ms = 0;
    bool json = false;
};

int run_serve(const MachineSelection& machine, const ServeOptions& options);

}  // namespace nsim::tools
