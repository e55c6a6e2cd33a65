// Backward of the sequence-classification head (device/bert_program.cpp's pooler + classifier) given
// dL/dlogits, token-major (one sequence per partition), composed from the other backward kernels:
//   classifier   linear_backward(pooled, dlogits, W_c)  -> dpooled, dW_c, db_c
//   tanh         tanh_backward(pooled, dpooled)         -> dz
//   pooler       linear_backward(cls, dz, W_p)          -> dcls, dW_p, db_p
//   [CLS] rows   embedding_backward with the first-token positions as ids: dcls row b lands on token
//                b * seq of the [tokens, hidden] gradient, every other token gets zero.
#pragma once

#include "train/tile_products.h"

namespace nsim::kernels::train {

struct ClassifierHeadInputs {
    const TileSet* cls = nullptr;        // [batch, hidden] the first token of each sequence (matmul dtype)
    const TileSet* pooled = nullptr;     // [batch, hidden] tanh(cls W_p^T + b_p) (matmul dtype)
    const TileSet* dlogits = nullptr;    // [batch, labels] (matmul dtype)
    const TileSet* positions = nullptr;  // [batch, 1] fp32: b * seq
    device::DramMatrix pooler, classifier;  // W_p [hidden, hidden], W_c [labels, hidden], [out, in]
    builder::Buffer index_row;           // fp32 0, 1, ... (add_index_row), >= one token tile wide
};

struct ClassifierHeadOutputs {
    TileSet* hidden = nullptr;  // [tokens, hidden]
    TileSet *pooler_weight = nullptr, *pooler_bias = nullptr;          // [hidden, hidden], [1, hidden]
    TileSet *classifier_weight = nullptr, *classifier_bias = nullptr;  // [labels, hidden], [1, labels]
};

void classifier_head_backward(KernelContext& ctx, const ClassifierHeadInputs& in, const ClassifierHeadOutputs& out);

}  // namespace nsim::kernels::train
