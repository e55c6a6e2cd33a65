#include "program_flops.h"

#include "profile/instruction_flops.h"

namespace nsim::runtime {

std::vector<double> matmul_flops_per_core(const isa::Container& program, uint32_t graph) {
    std::vector<double> flops;
    for (const sim::profile::CoreFlops& core : sim::profile::flops_per_core(program, nullptr, graph))
        flops.push_back(core.model.flops);
    return flops;
}

}  // namespace nsim::runtime
