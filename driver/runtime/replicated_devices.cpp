#include "replicated_devices.h"

#include <algorithm>

namespace nsim::runtime {
namespace {

bool reaches_other_cores(const isa::Instruction& inst) {
    return isa::info(inst.opcode).cost == isa::CostClass::Collective || inst.opcode == isa::Opcode::Barrier;
}

// The first device's cores when every device holds as many program cores, in the same places, one
// device after another; 0 otherwise (one device, or another arrangement).
uint32_t cores_of_first_device(const std::vector<sim::core::PhysicalCore>& cores) {
    const auto other = std::find_if(cores.begin(), cores.end(), [&](const auto& c) { return c.device != cores.front().device; });
    const size_t per_device = size_t(other - cores.begin());
    if (other == cores.end() || cores.size() % per_device != 0) return 0;
    for (size_t i = per_device; i < cores.size(); ++i) {
        const size_t block = i - i % per_device;  // the index of its device's first core
        const bool next_device = i == block ? cores[i].device > cores[i - 1].device : cores[i].device == cores[block].device;
        if (!next_device || cores[i].core != cores[i % per_device].core) return 0;
    }
    return uint32_t(per_device);
}

}  // namespace

uint32_t cores_to_simulate(const isa::Container& program, const sim::core::ProgramPlacement& placement, uint32_t graph) {
    const uint32_t all = uint32_t(placement.cores.size());
    if (!placement.region_per_core) return all;
    const uint32_t per_device = cores_of_first_device(placement.cores);
    if (per_device == 0) return all;
    // Each core's streams must be those of the first device's core in its place.
    std::vector<std::vector<const isa::InstructionStream*>> of_core(all);
    for (uint32_t core = 0; core < all; ++core) of_core[core] = isa::core_streams(program, graph, core);
    for (uint32_t core = 0; core < per_device; ++core)
        for (const isa::InstructionStream* s : of_core[core])
            if (std::any_of(s->instructions.begin(), s->instructions.end(), reaches_other_cores)) return all;
    for (uint32_t core = per_device; core < all; ++core)
        if (!isa::same_streams(of_core[core], of_core[core % per_device])) return all;
    return per_device;
}

std::vector<double> busy_of_every_core(const std::vector<double>& busy_s, uint32_t simulated, size_t cores) {
    std::vector<double> all(cores, 0.0);
    for (size_t i = 0; i < cores && simulated > 0; ++i)
        if (i % simulated < busy_s.size()) all[i] = busy_s[i % simulated];
    return all;
}

}  // namespace nsim::runtime
