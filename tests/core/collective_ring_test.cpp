// The ring a collective's data travels (sim/core/collective_ring.h), on the shipped trn1.32xlarge:
// for every rank set its runtime accepts, each rank hands its share to the other core of its device
// or to a core of a NeuronLink neighbour, never through the host; without a cycle of links the
// ranks keep their order.
#include <gtest/gtest.h>

#include <algorithm>

#include "config/config_set.h"
#include "config/link_topology.h"
#include "core/collective_ring.h"

namespace nsim {
namespace {

using sim::core::ring_order;

struct Links {
    config::NeighbourLists lists;
    bool operator()(uint32_t a, uint32_t b) const {
        return std::find(lists.at(a).begin(), lists.at(a).end(), b) != lists.at(a).end();
    }
};

void expect_linked_ring(const config::HostSpec& spec, uint32_t first_core, uint32_t ranks) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks from nc" + std::to_string(first_core));
    const Links links{spec.instance.connected_to};
    std::vector<uint32_t> device_of_rank;
    for (uint32_t r = 0; r < ranks; ++r) device_of_rank.push_back((first_core + r) / spec.chip.cores_per_device);
    const std::vector<uint32_t> order = ring_order(device_of_rank, links);
    ASSERT_EQ(order.size(), ranks);
    std::vector<uint32_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (uint32_t r = 0; r < ranks; ++r) ASSERT_EQ(sorted[r], r) << "not a permutation of the ranks";
    for (uint32_t p = 0; p < ranks; ++p) {
        const uint32_t from = device_of_rank[order[p]], to = device_of_rank[order[(p + 1) % ranks]];
        EXPECT_TRUE(from == to || links(from, to)) << "position " << p << ": device " << from << " -> " << to;
    }
}

TEST(CollectiveRing, FollowsTheTrn1TorusForEveryAcceptedRankSet) {
    const config::HostSpec spec = config::ConfigSet::load(NSIM_CONFIG_DIR).host("trn1.32xlarge");
    ASSERT_EQ(spec.instance.collective_rank_counts, (std::vector<uint32_t>{2, 8, 16, 32}));
    for (uint32_t ranks : spec.instance.collective_rank_counts)
        for (uint32_t first = 0; first + ranks <= 32; first += ranks) expect_linked_ring(spec, first, ranks);
}

TEST(CollectiveRing, KeepsRankOrderWhereTheLinksCloseNoCycle) {
    // Four devices in a line, two ranks each: no cycle through all four.
    const Links chain{config::chain_links(4)};
    const std::vector<uint32_t> order = ring_order({0, 0, 1, 1, 2, 2, 3, 3}, chain);
    EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(CollectiveRing, PutsADevicesRanksNextToEachOther) {
    // Ranks alternate between two devices; the ring takes each device's ranks together.
    const Links pair{config::ring_links(2)};
    EXPECT_EQ(ring_order({0, 1, 0, 1}, pair), (std::vector<uint32_t>{0, 2, 1, 3}));
}

}  // namespace
}  // namespace nsim
