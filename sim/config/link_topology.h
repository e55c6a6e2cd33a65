// Expanding a declared device topology (chain, ring, 2D torus) into per-device neighbour lists.
#pragma once

#include <cstdint>
#include <vector>

namespace nsim::config {

using NeighbourLists = std::vector<std::vector<uint32_t>>;

// Devices 0..n-1 in a line; each lists its previous then its next neighbour (as neuron-ls does
// on inf2).
NeighbourLists chain_links(uint32_t devices);
// A chain whose ends are joined.
NeighbourLists ring_links(uint32_t devices);
// rows x cols devices numbered row by row, wrapping in both dimensions; each lists up, left,
// down, right - the order neuron-ls prints for trn1.32xlarge and trn2.48xlarge.
NeighbourLists torus_links(uint32_t rows, uint32_t cols);

}  // namespace nsim::config
