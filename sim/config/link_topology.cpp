#include "config/link_topology.h"

#include <algorithm>

namespace nsim::config {
namespace {

// Small rings and tori (2 or 1 devices along a dimension) reach the same neighbour twice or
// themselves; a link exists once and never to itself.
void add_link(NeighbourLists& links, uint32_t from, uint32_t to) {
    auto& list = links[from];
    if (from != to && std::find(list.begin(), list.end(), to) == list.end()) list.push_back(to);
}

}  // namespace

NeighbourLists chain_links(uint32_t devices) {
    NeighbourLists links(devices);
    for (uint32_t d = 0; d < devices; ++d) {
        if (d > 0) add_link(links, d, d - 1);
        if (d + 1 < devices) add_link(links, d, d + 1);
    }
    return links;
}

NeighbourLists ring_links(uint32_t devices) {
    NeighbourLists links(devices);
    for (uint32_t d = 0; d < devices; ++d) {
        add_link(links, d, (d + devices - 1) % devices);
        add_link(links, d, (d + 1) % devices);
    }
    return links;
}

NeighbourLists torus_links(uint32_t rows, uint32_t cols) {
    NeighbourLists links(rows * cols);
    for (uint32_t r = 0; r < rows; ++r) {
        for (uint32_t c = 0; c < cols; ++c) {
            const uint32_t d = r * cols + c;
            add_link(links, d, ((r + rows - 1) % rows) * cols + c);
            add_link(links, d, r * cols + (c + cols - 1) % cols);
            add_link(links, d, ((r + 1) % rows) * cols + c);
            add_link(links, d, r * cols + (c + 1) % cols);
        }
    }
    return links;
}

}  // namespace nsim::config
