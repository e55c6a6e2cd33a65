// Backward of the element-wise and row-wise activations, on TileSets of any layout (the element-wise
// ones) or token-major rows (softmax). Intermediates stay fp32 in a scratch row per partition, so each
// gradient is rounded once, when it is written in its own dtype.
//   gelu:    dx = dy * gelu_dx(x)               the scalar engine's derivative table entry (training.md A3)
//   tanh:    dx = dy * (1 - y^2)                from the forward output y (the pooler keeps it)
//   softmax: ds = scale * p * (dp - rowsum(dp * p))   the flash-attention backward recipe (training.md A3)
#pragma once

#include "train/tile_products.h"

namespace nsim::kernels::train {

void gelu_backward(KernelContext& ctx, const TileSet& x, const TileSet& dy, TileSet& dx);
void tanh_backward(KernelContext& ctx, const TileSet& y, const TileSet& dy, TileSet& dx);
// p, dp, ds [rows, columns] token-major (a row per partition).
void softmax_backward(KernelContext& ctx, const TileSet& p, const TileSet& dp, TileSet& ds, float scale = 1.0f);
// The same on one block of rows (the attention backward's query blocks): `product` is an fp32 scratch
// view shaped like p, `dot` an fp32 [rows, 1] one.
void softmax_backward_rows(KernelContext& ctx, const builder::View& p, const builder::View& dp, const builder::View& ds,
                           const builder::View& product, const builder::View& dot, float scale);

}  // namespace nsim::kernels::train
