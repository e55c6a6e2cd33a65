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

namespace {
// A sink that puts the blocks of a linear layer's chunk of outputs where they belong: rows of the
// weight's gradient, columns of the bias's, from the chunk's first output on.
class OutputChunkSink : public GradientSink {
public:
    OutputChunkSink(GradientSink& sink, uint32_t weight, uint32_t bias, uint32_t first_output)
        : sink_(sink), weight_(weight), bias_(bias), first_(first_output) {}
    uint32_t block_columns() const override { return sink_.block_columns(); }
    TileSet begin(uint32_t parameter, uint32_t row, uint32_t column, uint32_t rows, uint32_t columns) override {
        return sink_.begin(parameter, at_row(parameter, row), at_column(parameter, column), rows, columns);
    }
    void end(uint32_t parameter, const TileSet& block, uint32_t row, uint32_t column) override {
        sink_.end(parameter, block, at_row(parameter, row), at_column(parameter, column));
    }

private:
    uint32_t at_row(uint32_t parameter, uint32_t row) const { return parameter == weight_ ? row + first_ : row; }
    uint32_t at_column(uint32_t parameter, uint32_t column) const { return parameter == bias_ ? column + first_ : column; }
    GradientSink& sink_;
    uint32_t weight_, bias_, first_;
};
}  // namespace

void GradientSink::linear(KernelContext& ctx, const TileSet& x, const TileSet& dy, uint32_t weight, uint32_t bias,
                          LinearSlice at) {
    if (at.first_token != 0 || x.tiles.empty())
        throw std::logic_error("GradientSink: a linear's gradients made now need its input on chip and the pass's tokens at once");
    const uint32_t first_output = at.first_output;
    if (first_output == 0) {
        linear_parameter_gradients(ctx, x, dy, *this, weight, bias);
        return;
    }
    OutputChunkSink chunk(*this, weight, bias, first_output);
    linear_parameter_gradients(ctx, x, dy, chunk, weight, bias);
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
