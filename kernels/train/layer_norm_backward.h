// Backward of LayerNorm (device/layer_norm_kernel.h) given dy, token-major (one token per partition,
// hidden along the free axis), from the forward's input x, which it normalises again the way the
// forward does (bn_stats / bn_aggr, rstd = (var + eps)^-1/2) rather than keeping x_hat:
//   g = dy * gamma;  dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))   per token, vector engine
//   dgamma = sum_tokens dy * x_hat;  dbeta = sum_tokens dy                 contract_tokens with ones
// No NKI LayerNorm backward is published (training.md A3, a gap): this is the textbook formula on
// the engines the forward uses. Intermediates are fp32.
#pragma once

#include "train/tile_products.h"

namespace nsim::kernels::train {

struct LayerNormBackwardOutputs {
    TileSet* input = nullptr;  // dx [tokens, hidden]
    TileSet* gamma = nullptr;  // dgamma [1, hidden] (fp32)
    TileSet* beta = nullptr;   // dbeta [1, hidden] (fp32)
};

// x, dy [tokens, hidden] token-major; gamma_row: fp32 [partitions, hidden], gamma broadcast over partitions.
void layer_norm_backward(KernelContext& ctx, const TileSet& x, const TileSet& dy, const builder::Buffer& gamma_row,
                         float eps, const LayerNormBackwardOutputs& out);

}  // namespace nsim::kernels::train
