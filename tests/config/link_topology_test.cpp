// Declared topologies expand into the neighbour lists neuron-ls prints.
#include <gtest/gtest.h>

#include "config/link_topology.h"

namespace nsim::config {
namespace {

TEST(ConfigLinkTopology, ChainListsPreviousThenNext) {
    const NeighbourLists expected = {{1}, {0, 2}, {1, 3}, {2, 4}, {3, 5}, {4}};  // tools.md 1.7, inf2.24xlarge
    EXPECT_EQ(chain_links(6), expected);
    EXPECT_EQ(chain_links(1), NeighbourLists{{}});
}

TEST(ConfigLinkTopology, RingJoinsTheEndsAndNeverRepeatsALink) {
    EXPECT_EQ(ring_links(4), (NeighbourLists{{3, 1}, {0, 2}, {1, 3}, {2, 0}}));
    EXPECT_EQ(ring_links(2), (NeighbourLists{{1}, {0}}));
    EXPECT_EQ(ring_links(1), NeighbourLists{{}});
}

TEST(ConfigLinkTopology, TorusListsUpLeftDownRight) {
    const NeighbourLists links = torus_links(4, 4);
    ASSERT_EQ(links.size(), 16u);
    EXPECT_EQ(links[0], (std::vector<uint32_t>{12, 3, 4, 1}));   // tools.md 1.3
    EXPECT_EQ(links[9], (std::vector<uint32_t>{5, 8, 13, 10}));
    EXPECT_EQ(links[15], (std::vector<uint32_t>{11, 14, 3, 12}));
    EXPECT_EQ(torus_links(2, 2)[0], (std::vector<uint32_t>{2, 1}));
}

}  // namespace
}  // namespace nsim::config
