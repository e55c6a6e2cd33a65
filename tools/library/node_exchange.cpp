#include "library/node_exchange.h"

#include <algorithm>

#include <fmt/format.h>

#include "library/library_error.h"

namespace nsim::library {
namespace {

class SingleProcessNodes final : public NodeExchange {
public:
    uint32_t process() const override { return 0; }
    uint32_t processes() const override { return 1; }
    std::vector<NodeArrival> exchange(const std::vector<NodeArrival>& local) override {
        std::vector<NodeArrival> all = local;
        std::sort(all.begin(), all.end(), [](const NodeArrival& a, const NodeArrival& b) { return a.node < b.node; });
        return all;
    }
    void abandon(const std::string&) override {}
    void barrier() override {}
};

}  // namespace

void NodeExchange::spread(uint32_t nodes) {
    if (nodes == 0) throw Error("a cluster needs at least one node");
    if (processes() > nodes)
        throw Error(fmt::format("{} nodes over {} MPI ranks: each rank simulates one node or more (mpirun -np 1 to {})",
                                nodes, processes(), nodes));
    nodes_ = nodes;
}

uint32_t NodeExchange::first_local_node() const { return uint32_t(uint64_t(process()) * nodes_ / processes()); }

uint32_t NodeExchange::local_node_count() const {
    return uint32_t(uint64_t(process() + 1) * nodes_ / processes()) - first_local_node();
}

std::unique_ptr<NodeExchange> single_process_nodes() { return std::make_unique<SingleProcessNodes>(); }

}  // namespace nsim::library
