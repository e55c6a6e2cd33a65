#include "train/gradient_sink.h"

#include <algorithm>
#include <stdexcept>

namespace nsim::kernels::train {

TileSet OnChipGradients::begin(uint32_t parameter, uint32_t first_row, uint32_t first_column, uint32_t rows,
                               uint32_t columns) {
    const auto found = gradients_.find(parameter);
    if (found == gradients_.end()) throw std::logic_error("OnChipGradients: no TileSet for a parameter");
    const TileSet& whole = *found->second;
    if (first_column != 0 || columns != whole.columns || first_row % whole.tile_rows != 0 || first_row + rows > whole.rows)
        throw std::logic_error("OnChipGradients: a block that is not whole rows of tiles");
    TileSet block = whole;
    const uint32_t first = first_row / whole.tile_rows, count = (rows + whole.tile_rows - 1) / whole.tile_rows;
    block.tiles.assign(whole.tiles.begin() + first, whole.tiles.begin() + first + count);
    block.rows = rows;
    return block;
}

void GradientSink::linear(KernelContext& ctx, const TileSet& x, const TileSet& dy, uint32_t weight, uint32_t bias) {
    linear_parameter_gradients(ctx, x, dy, *this, weight, bias);
}

void linear_parameter_gradients(KernelContext& ctx, const TileSet& x, const TileSet& dy, GradientSink& sink,
                                uint32_t weight, uint32_t bias) {
    const uint32_t out = dy.columns, in = x.columns;
    const uint32_t tile = std::min(dy.tile_rows, ctx.max_stationary());
    const uint32_t width = std::max(1u, sink.block_columns());
    for (const device::Range rows : device::split(out, tile))
        for (const device::Range columns : device::split(in, std::min(width, in))) {
            TileSet block = sink.begin(weight, rows.begin, columns.begin, rows.size, columns.size);
            contract_tokens(ctx, dy, x, block, rows, columns);
            sink.end(weight, block, rows.begin, columns.begin);
        }
    if (bias == kNoParameter) return;
    const TileSet ones = ones_column(ctx, dy.rows, dy.dtype);
    for (const device::Range columns : device::split(out, std::min(width, out))) {
        TileSet block = sink.begin(bias, 0, columns.begin, 1, columns.size);
        contract_tokens(ctx, ones, dy, block, device::Range{0, 1}, columns);
        sink.end(bias, block, 0, columns.begin);
    }
}

}  // namespace nsim::kernels::train
