#include "core/collective_ring.h"

#include <algorithm>

#include "isa/opcode_table.h"

namespace nsim::sim::core {
namespace {

// Depth-first search for a cycle through every device of `devices` (index 0 first), extending `path`.
bool close_cycle(const std::vector<uint32_t>& devices, const std::function<bool(uint32_t, uint32_t)>& linked,
                 std::vector<uint32_t>& path, std::vector<bool>& used) {
    if (path.size() == devices.size()) return linked(devices[path.back()], devices[path.front()]);
    for (uint32_t next = 0; next < devices.size(); ++next) {
        if (used[next] || !linked(devices[path.back()], devices[next])) continue;
        used[next] = true;
        path.push_back(next);
        if (close_cycle(devices, linked, path, used)) return true;
        path.pop_back();
        used[next] = false;
    }
    return false;
}

}  // namespace

CollectiveGroup collective_group(const isa::Instruction& inst) {
    switch (inst.opcode) {
        case isa::Opcode::AllReduce:
            return {inst.u32(isa::fields::AllReduce::first_core), inst.u32(isa::fields::AllReduce::core_count)};
        case isa::Opcode::AllGather:
            return {inst.u32(isa::fields::AllGather::first_core), inst.u32(isa::fields::AllGather::core_count)};
        case isa::Opcode::ReduceScatter:
            return {inst.u32(isa::fields::ReduceScatter::first_core),
                    inst.u32(isa::fields::ReduceScatter::core_count)};
        case isa::Opcode::Barrier:
            return {inst.u32(isa::fields::Barrier::first_core), inst.u32(isa::fields::Barrier::core_count)};
        default: return {};
    }
}

bool is_collective(const isa::Instruction& inst) {
    return inst.opcode == isa::Opcode::AllReduce || inst.opcode == isa::Opcode::AllGather ||
           inst.opcode == isa::Opcode::ReduceScatter;
}

std::vector<uint32_t> ring_order(const std::vector<uint32_t>& device_of_rank,
                                 const std::function<bool(uint32_t, uint32_t)>& linked) {
    std::vector<uint32_t> devices;  // distinct, in order of their first rank
    for (uint32_t d : device_of_rank)
        if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
    std::vector<uint32_t> path{0};
    std::vector<uint32_t> searched = devices;
    // Sorted so that the search tries neighbours in ascending device order.
    std::sort(searched.begin() + 1, searched.end());
    std::vector<bool> used(devices.size(), false);
    used[0] = true;
    if (devices.size() > 2 && close_cycle(searched, linked, path, used)) {
        devices = searched;
    } else {
        path.resize(devices.size());
        for (uint32_t i = 0; i < devices.size(); ++i) path[i] = i;
    }
    std::vector<uint32_t> order;
    for (uint32_t i : path)
        for (uint32_t rank = 0; rank < device_of_rank.size(); ++rank)
            if (device_of_rank[rank] == devices[i]) order.push_back(rank);
    return order;
}

}  // namespace nsim::sim::core
