// Backward of a fully-connected layer y = x W^T + b (device/linear_kernels.h) given dy, token-major:
//   dx = dy W        dy transposed on the tensor engine (transpose_tiles) to put the output features on
//                    partitions, then the forward token_major_linear with W in Hugging Face's [out, in]
//                    layout as the streaming weights (the forward streams W^T [in, out]; a training
//                    program keeps both layouts of each weight in device memory).
//   dW = dy^T x      contract_tokens: both operands token-major as the forward left them, no transpose.
//   db = 1^T dy      contract_tokens with a column of ones.
// Gradients are produced in the dtype of the TileSets the caller gives (fp32 accumulators, or bf16).
#pragma once

#include "train/tile_products.h"

namespace nsim::kernels::train {

struct LinearBackwardOutputs {
    TileSet* input = nullptr;  // dx [tokens, in]; none for the first layer's input
    TileSet* weight = nullptr; // dW [out, in]
    TileSet* bias = nullptr;   // db [1, out]; none for a layer without a bias
};

// x [tokens, in], dy [tokens, out] token-major in the matmul dtype (ctx.dtypes.matmul);
// weight_out_in: W [out, in] in device memory.
void linear_backward(KernelContext& ctx, const TileSet& x, const TileSet& dy, const device::DramMatrix& weight_out_in,
                     const LinearBackwardOutputs& out);

}  // namespace nsim::kernels::train
