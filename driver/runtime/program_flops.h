// The floating-point work of one execution of a program, per program core: 2 x K x M x N for every
// matmul its tensor engine issues (K the contraction, M and N the stationary and moving free sizes;
// sim/profile/instruction_flops.h counts them).
// Element-wise work on the other engines is not counted. The runtime publishes it with each
// execution's busy time, so neuron-top's FLOPS view and neuron-monitor's `flops` are the program's
// own instructions over simulated time.
#pragma once

#include <vector>

#include "isa/container.h"

namespace nsim::runtime {

// Of one execution of graph `graph`.
std::vector<double> matmul_flops_per_core(const isa::Container& program, uint32_t graph = 0);

}  // namespace nsim::runtime
