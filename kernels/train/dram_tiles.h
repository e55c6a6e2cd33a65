// Whole TileSets to and from blocks of row-major tensors in device memory, one transfer per set
// spread over the channel's queues, on one DMA channel (a channel's transfers complete in order, which is what keeps a store and a later
// load of the same tensor - neither tracked by the builder - in order). The tensor's dtype may differ
// from the tiles' (the DMA converts).
#pragma once

#include "device/kernel_context.h"

namespace nsim::kernels::train {

// Rows [first_row, first_row + set rows) x columns [first_column, first_column + set columns) of
// `tensor`, whose rows hold `row_length` elements of `dtype`.
struct DramBlock {
    uint32_t tensor = 0;
    isa::DType dtype = isa::DType::Fp32;
    uint32_t row_length = 0;
    uint32_t first_row = 0, first_column = 0;
};

void load_tiles(device::KernelContext& ctx, builder::DmaChannel& channel, const DramBlock& from, device::TileSet& set);
void store_tiles(device::KernelContext& ctx, builder::DmaChannel& channel, const device::TileSet& set, const DramBlock& to);

}  // namespace nsim::kernels::train
