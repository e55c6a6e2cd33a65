#include "train/dram_tiles.h"

#include <algorithm>

namespace nsim::kernels::train {

using builder::View;

namespace {
View rows_of_block(const device::TileSet& set, uint32_t tile, const DramBlock& b) {
    return builder::dram(builder::dram_rows(b.tensor, b.dtype, b.row_length, uint64_t(b.first_row) + tile * set.tile_rows,
                                            set.rows_of(tile), b.first_column, set.columns));
}

// One transfer for the whole set: each tile's rows cut into pieces so that the set spreads over every
// queue of the channel (one DMA engine each), as the inference kernels spread a weight block.
template <class Pair>
void transfer(device::KernelContext& ctx, builder::DmaChannel& channel, const device::TileSet& set, Pair pair) {
    const uint32_t tiles = uint32_t(set.tiles.size());
    const uint32_t per_tile = std::max<uint32_t>(1, uint32_t(channel.queues().size()) / std::max(1u, tiles));
    std::vector<builder::DmaPiece> pieces;
    for (uint32_t i = 0; i < tiles; ++i) {
        const auto [dst, src] = pair(i);
        for (const builder::DmaPiece& p : builder::CoreBuilder::split_rows(dst, src, per_tile)) pieces.push_back(p);
    }
    ctx.core.dma(channel, pieces);
}
}  // namespace

void load_tiles(device::KernelContext& ctx, builder::DmaChannel& channel, const DramBlock& from, device::TileSet& set) {
    transfer(ctx, channel, set, [&](uint32_t i) { return std::pair{set.view(i, 0, set.columns), rows_of_block(set, i, from)}; });
}

void store_tiles(device::KernelContext& ctx, builder::DmaChannel& channel, const device::TileSet& set, const DramBlock& to) {
    transfer(ctx, channel, set, [&](uint32_t i) { return std::pair{rows_of_block(set, i, to), set.view(i, 0, set.columns)}; });
}

}  // namespace nsim::kernels::train
