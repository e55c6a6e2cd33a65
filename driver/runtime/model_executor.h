// The seam between the runtime and the NeuronCore engines: the runtime loads a program (validated,
// device memory allocated, weights and instruction streams copied over PCIe) and hands an executor
// where everything is; the executor runs the instruction streams on the claimed cores (fetching them
// from the device memory the load put them in, sim/core/instruction_fetch.h) and reports what it
// took. The placement is the engines' own (sim::core::ProgramPlacement), so the EngineScheduler
// implements this directly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/container.h"
#include "core/program_placement.h"
#include "core/trace_writer.h"
#include "platform/platform.h"

namespace nsim::runtime {

struct LoadedProgram {
    const isa::Container* program = nullptr;
    sim::core::ProgramPlacement placement;  // physical cores, the device region's copies, the host region, the code
    // By graph: the program cores a timing-only execution simulates, the first device's when the other
    // devices run the same streams and take its time (replicated_devices.h); else every core.
    std::vector<uint32_t> timing_cores;
};

struct ExecutionRequest {
    uint32_t iterations = 1;
    uint32_t graph = 0;               // which of the program's graphs (isa::Container::graphs)
    bool functional = true;           // compute real values (the runtime moves real tensors)
    double timeout_s = 0;             // NEURON_RT_EXEC_TIMEOUT, simulated seconds; 0 = none
    sim::core::TraceWriter* trace = nullptr;  // the engines write their slices here (null: not traced)
};

struct ExecutionResult {
    bool ok = false;
    std::string message;              // why not, one line
    std::string report;               // the rest of what the engines said (a deadlock's queue states)
    bool timed_out = false;
    double device_seconds = 0;        // simulated time the engines ran
    uint64_t cycles = 0;
    // By program core: how long the graph executed on it, as neuron-top's utilization counts it (the
    // execution's device time; 0 for a core with no instruction in the graph), not its engines' busy time.
    std::vector<double> core_busy_s;
    // Program cores 0 .. simulated_cores - 1 were simulated; every other core ran the same streams on a
    // device of its own and took their time (replicated_devices.h). All of them, usually.
    uint32_t simulated_cores = 0;
};

class ModelExecutor {
public:
    virtual ~ModelExecutor() = default;
    virtual ExecutionResult execute(sim::Platform& platform, const LoadedProgram& program, const ExecutionRequest& request) = 0;
};

}  // namespace nsim::runtime
