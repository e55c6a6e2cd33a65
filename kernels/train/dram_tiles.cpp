#include "train/dram_tiles.h"

namespace nsim::kernels::train {

using builder::View;

namespace {
View rows_of_block(const device::TileSet& set, uint32_t tile, const DramBlock& b) {
    return builder::dram(builder::dram_rows(b.tensor, b.dtype, b.row_length, uint64_t(b.first_row) + tile * set.tile_rows,
                                            set.rows_of(tile), b.first_column, set.columns));
}
}  // namespace

void load_tiles(device::KernelContext& ctx, builder::DmaChannel& channel, const DramBlock& from, device::TileSet& set) {
    for (uint32_t i = 0; i < set.tiles.size(); ++i)
        ctx.core.dma(channel, builder::CoreBuilder::split_rows(set.view(i, 0, set.columns), rows_of_block(set, i, from), 1));
}

void store_tiles(device::KernelContext& ctx, builder::DmaChannel& channel, const device::TileSet& set, const DramBlock& to) {
    for (uint32_t i = 0; i < set.tiles.size(); ++i)
        ctx.core.dma(channel, builder::CoreBuilder::split_rows(rows_of_block(set, i, to), set.view(i, 0, set.columns), 1));
}

}  // namespace nsim::kernels::train
