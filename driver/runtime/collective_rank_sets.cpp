#include "collective_rank_sets.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/collective_ring.h"
#include "isa/opcode_table.h"

namespace nsim::runtime {
namespace {

// "2, 8, 16 or 32"
std::string spoken_list(const std::vector<uint32_t>& counts) {
    std::string text;
    for (size_t i = 0; i < counts.size(); ++i)
        text += (i == 0 ? "" : i + 1 == counts.size() ? " or " : ", ") + std::to_string(counts[i]);
    return text;
}

}  // namespace

std::string refused_collective(const isa::Container& program, const std::vector<sim::core::PhysicalCore>& cores,
                               const config::HostSpec& spec) {
    const std::vector<uint32_t>& allowed = spec.instance.collective_rank_counts;
    if (allowed.empty()) return {};
    const uint32_t per_nc = std::max<uint32_t>(1, spec.chip.logical_neuroncore_config);
    const uint32_t nc_per_device = spec.chip.cores_per_device / per_nc;
    std::set<std::pair<uint32_t, uint32_t>> checked;
    for (const isa::InstructionStream& stream : program.streams) {
        for (const isa::Instruction& inst : stream.instructions) {
            if (!sim::core::is_collective(inst)) continue;
            const sim::core::CollectiveGroup g = sim::core::collective_group(inst);
            if (!checked.insert({g.first, g.count}).second) continue;
            if (g.count == 0 || uint64_t(g.first) + g.count > cores.size()) continue;  // the validator's to say
            const sim::core::PhysicalCore& at = cores[g.first];
            const uint32_t first_nc = at.device * nc_per_device + at.core / per_nc;
            const std::string what = fmt::format("{} over {} ranks from nc{}", isa::info(inst.opcode).mnemonic, g.count, first_nc);
            if (std::find(allowed.begin(), allowed.end(), g.count) == allowed.end())
                return fmt::format("{}: {} runs collectives on {} ranks", what, spec.instance.name, spoken_list(allowed));
            if (first_nc % g.count != 0)
                return fmt::format("{}: a group of {} ranks must start at a NeuronCore that is a multiple of {}", what,
                                   g.count, g.count);
        }
    }
    return {};
}

}  // namespace nsim::runtime
