// Simulating one device of a data-parallel program and counting the others. A program whose cores
// each keep their own copy of the device region (sim::core::has_region_per_core: a data-parallel
// training program) runs, in a graph without collectives (a micro-step, the optimizer), the same
// instruction streams on every core, each on its own tensors in its own device's memory: the cores
// of one device share its memory channels and DMA fabric, and nothing of one device reaches another.
// So in a timing-only execution every device takes the time the first device takes, and only the
// first device's cores need simulating (BERT-large on the 32 cores of a trn1.32xlarge: 2 of them
// rather than 32). The first device is simulated whole, both of its cores together, since they
// contend for its memory and DMA engines. A graph with a collective (the all-reduce), a barrier, a
// program whose devices do not run the same streams, or a functional execution (every core
// computes its own values) runs on every core.
#pragma once

#include <cstdint>
#include <vector>

#include "core/program_placement.h"
#include "isa/container.h"

namespace nsim::runtime {

// How many program cores (the first device's) a timing-only execution of graph `graph` must
// simulate for the time of all of `placement`'s cores; placement.cores.size() when all of them.
uint32_t cores_to_simulate(const isa::Container& program, const sim::core::ProgramPlacement& placement, uint32_t graph);

// Each program core's busy time from the simulated cores': program core i, in the same place on its
// device as simulated core i % simulated, took what that one took. `busy_s` has `simulated` entries.
std::vector<double> busy_of_every_core(const std::vector<double>& busy_s, uint32_t simulated, size_t cores);

}  // namespace nsim::runtime
