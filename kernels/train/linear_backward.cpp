#include "train/linear_backward.h"

#include <stdexcept>

#include "device/linear_kernels.h"

namespace nsim::kernels::train {

void linear_backward(KernelContext& ctx, const TileSet& x, const TileSet& dy, const device::DramMatrix& weight_out_in,
                     const LinearBackwardOutputs& out) {
    if (x.rows != dy.rows) throw std::logic_error("linear_backward: x and dy have different tokens");
    if (weight_out_in.rows != dy.columns || weight_out_in.columns != x.columns)
        throw std::logic_error("linear_backward: weight shape");
    if (out.input) {
        TileSet dy_t = device::allocate_tiles(ctx.core, dy.columns, dy.rows, dy.dtype, "dy^T");
        transpose_tiles(ctx, dy, dy_t);
        device::token_major_linear(ctx, dy_t, weight_out_in, *out.input, device::TokenEpilogue::Store);
    }
    if (out.weight) contract_tokens(ctx, dy, x, *out.weight);
    if (out.bias) {
        const TileSet ones = ones_column(ctx, dy.rows, dy.dtype);
        contract_tokens(ctx, ones, dy, *out.bias);
    }
}

}  // namespace nsim::kernels::train
