#include "cluster/hierarchical_collective.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "core/semantics/dtype_conversion.h"

namespace nsim::sim::cluster {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The most ranks that share one resource, given each rank's resource.
uint32_t busiest(const std::vector<uint32_t>& resource_of_rank) {
    std::map<uint32_t, uint32_t> ranks;
    uint32_t most = 0;
    for (uint32_t r : resource_of_rank) most = std::max(most, ++ranks[r]);
    return most;
}

}  // namespace

const char* collective_name(CollectiveKind kind) {
    switch (kind) {
        case CollectiveKind::AllReduce: return "all_reduce";
        case CollectiveKind::AllGather: return "all_gather";
        case CollectiveKind::ReduceScatter: return "reduce_scatter";
    }
    return "?";
}

std::vector<CollectivePhase> hierarchical_phases(CollectiveKind kind, uint64_t elements, uint32_t ranks_per_node,
                                                 uint32_t nodes) {
    const uint64_t per_rank = std::max<uint64_t>(1, elements / ranks_per_node);   // one rank's share of the node's buffer
    if (nodes == 1) return {{false, kind, elements}};   // the instance's own collective
    const bool intra = ranks_per_node > 1, inter = nodes > 1;
    std::vector<CollectivePhase> phases;
    switch (kind) {
        case CollectiveKind::AllReduce:
            if (intra) phases.push_back({false, CollectiveKind::ReduceScatter, elements});
            if (inter) phases.push_back({true, CollectiveKind::AllReduce, per_rank});
            if (intra) phases.push_back({false, CollectiveKind::AllGather, elements});
            break;
        case CollectiveKind::AllGather:
            // A rank's block of the global output; the node's output is M of them per rank.
            if (inter) phases.push_back({true, CollectiveKind::AllGather, std::max<uint64_t>(1, per_rank / nodes)});
            if (intra) phases.push_back({false, CollectiveKind::AllGather, elements});
            break;
        case CollectiveKind::ReduceScatter:
            if (intra) phases.push_back({false, CollectiveKind::ReduceScatter, elements});
            if (inter) phases.push_back({true, CollectiveKind::ReduceScatter, per_rank});
            break;
    }
    return phases;
}

uint64_t inter_node_phase_ps(const config::HostSpec& spec, const CollectivePhase& phase, uint32_t element_bytes,
                             uint32_t ranks_per_node, uint32_t nodes) {
    const config::EfaSpec& efa = spec.instance.efa;
    if (!phase.inter_node || nodes < 2) return 0;
    if (efa.devices == 0) throw std::invalid_argument(spec.instance.name + " has no EFA to join instances");
    const uint64_t rank_bytes = phase.elements * element_bytes;
    uint64_t steps = nodes - 1, share = ceil_div(rank_bytes, nodes);
    if (phase.kind == CollectiveKind::AllReduce) steps = 2 * (nodes - 1);
    if (phase.kind == CollectiveKind::AllGather) share = rank_bytes;
    // Rank i is NeuronCore i (a logical core of lnc physical ones); its chip, and the EFA on that chip's group.
    const uint32_t cores_per_device =
        std::max<uint32_t>(1, spec.chip.cores_per_device / std::max<uint32_t>(1, spec.chip.logical_neuroncore_config));
    const uint32_t chips_per_efa = std::max<uint32_t>(1, spec.instance.devices / efa.devices);
    std::vector<uint32_t> chip_of_rank, efa_of_rank;
    for (uint32_t rank = 0; rank < ranks_per_node; ++rank) {
        chip_of_rank.push_back(rank / cores_per_device);
        efa_of_rank.push_back(chip_of_rank.back() / chips_per_efa);
    }
    const double efa_s = double(busiest(efa_of_rank)) * double(share) / efa.bytes_per_s;
    const double pcie_s = double(busiest(chip_of_rank)) * double(share) / spec.chip.pcie.bytes_per_s;
    return steps * (seconds_to_ps(efa.latency_s) + seconds_to_ps(std::max(efa_s, pcie_s)));
}

std::vector<std::vector<uint8_t>> inter_node_data(CollectiveKind kind, isa::DType dtype,
                                                  const std::vector<std::vector<uint8_t>>& buffers) {
    const size_t nodes = buffers.size();
    if (nodes == 0) return {};
    const size_t bytes = buffers.front().size();
    for (const auto& b : buffers)
        if (b.size() != bytes) throw std::invalid_argument("inter-node collective: the nodes' buffers differ in size");
    if (kind == CollectiveKind::AllGather) {
        std::vector<uint8_t> gathered;
        for (const auto& b : buffers) gathered.insert(gathered.end(), b.begin(), b.end());
        return std::vector<std::vector<uint8_t>>(nodes, gathered);
    }
    const uint32_t element = isa::size_in_bytes(dtype);
    const size_t count = bytes / element;
    // The DMA engines add in fp32 (training.md A1.2), node 0 first, and round once to the type.
    std::vector<float> sum(count, 0.0f), values(count);
    for (const auto& b : buffers) {
        core::dtype::decode(dtype, b.data(), values.data(), count);
        for (size_t i = 0; i < count; ++i) sum[i] += values[i];
    }
    std::vector<uint8_t> total(bytes);
    core::dtype::encode(dtype, sum.data(), total.data(), count);
    if (kind == CollectiveKind::AllReduce) return std::vector<std::vector<uint8_t>>(nodes, total);
    if (count % nodes != 0)
        throw std::invalid_argument("inter-node reduce_scatter: " + std::to_string(count) + " elements do not split into " +
                                    std::to_string(nodes) + " equal parts");
    const size_t part = bytes / nodes;
    std::vector<std::vector<uint8_t>> parts;
    for (size_t k = 0; k < nodes; ++k) parts.emplace_back(total.begin() + k * part, total.begin() + (k + 1) * part);
    return parts;
}

}  // namespace nsim::sim::cluster
