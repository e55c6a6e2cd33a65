#include "train/dram_tiles.h"

#include <algorithm>

namespace nsim::kernels::train {

using builder::View;

namespace {
View rows_of_block(const device::TileSet& set, uint32_t tile, const DramBlock& b) {
    return builder::dram(builder::dram_rows(b.tensor, b.dtype, b.row_length, uint64_t(b.first_row) + tile * set.tile_rows,
                                            set.rows_of(tile), b.first_column, set.columns));
}

// A piece of a transfer moves at least this much where it can: each DMA pays a fixed cost
// (configs' dma_transfer_overhead_s, 1.3 us on trn1: 64 KiB at 17 GB/s takes 3.9 us more), so many
// small pieces keep the engines busy with overheads (DMABW's advice of large transfers); larger
// pieces make a transfer wait longer, which the backward's gradient blocks feel (64 KiB: BERT-base
// step 129 -> 180 ms), so 16 KiB.
constexpr uint64_t kMinPieceBytes = 16 * 1024;

// One transfer for the whole set: each tile's rows cut into pieces of at least kMinPieceBytes, over
// as many of the channel's queues (one DMA engine each) as that gives.
template <class Pair>
void transfer(device::KernelContext& ctx, builder::DmaChannel& channel, const device::TileSet& set, Pair pair) {
    const uint32_t tiles = uint32_t(set.tiles.size());
    const uint64_t tile_bytes = uint64_t(std::min(set.rows, set.tile_rows)) * set.columns * isa::size_in_bytes(set.dtype);
    const uint32_t by_size = uint32_t(std::max<uint64_t>(1, tile_bytes / kMinPieceBytes));
    const uint32_t per_tile =
        std::min(by_size, std::max<uint32_t>(1, uint32_t(channel.queues().size()) / std::max(1u, tiles)));
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
