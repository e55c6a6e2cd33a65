#include "library/inter_node_phase.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "library/library_error.h"

namespace nsim::library {

uint64_t latest_arrival(const std::vector<NodeArrival>& arrivals) {
    uint64_t t = 0;
    for (const NodeArrival& a : arrivals) t = std::max(t, a.time_ps);
    return t;
}

std::vector<NodeArrival> run_inter_node_phase(NodeExchange& nodes, const config::HostSpec& spec,
                                              const sim::cluster::CollectivePhase& phase, uint32_t ranks_per_node,
                                              isa::DType dtype, const std::vector<NodeArrival>& local) {
    const std::vector<NodeArrival> all = nodes.exchange(local);
    std::vector<NodeArrival> done = local;
    uint64_t end = 0;
    try {
        end = latest_arrival(all) +
              sim::cluster::inter_node_phase_ps(spec, phase, isa::size_in_bytes(dtype), ranks_per_node, nodes.nodes());
    } catch (const std::invalid_argument& e) {
        throw Error(e.what());
    }
    for (NodeArrival& node : done) {
        node.time_ps = end;
        for (size_t rank = 0; rank < node.rank_data.size(); ++rank) {
            std::vector<std::vector<uint8_t>> buffers;   // rank `rank` of every node, in node order
            for (const NodeArrival& peer : all) {
                if (rank >= peer.rank_data.size())
                    throw Error(fmt::format("inter-node {}: node {} brought no buffer for rank {}",
                                            sim::cluster::collective_name(phase.kind), peer.node, rank));
                buffers.push_back(peer.rank_data[rank]);
            }
            try {
                node.rank_data[rank] = sim::cluster::inter_node_data(phase.kind, dtype, buffers).at(node.node);
            } catch (const std::invalid_argument& e) {
                throw Error(e.what());
            }
        }
    }
    return done;
}

}  // namespace nsim::library
