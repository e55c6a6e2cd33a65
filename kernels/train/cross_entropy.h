// Softmax cross-entropy and its gradient on the device, rows token-major (one sequence - or one masked
// position, for the masked-LM loss - per partition, the classes along the free axis):
//   z_max = max_j z_j;  e = exp(z - z_max) with its row sum (one scalar-engine instruction)
//   loss_r = log(sum) + z_max - z_label        (z_label = sum_j onehot_j z_j)
//   dz = (e / sum - onehot) / rows             the gradient of the mean loss
//   loss = (1^T loss_r) / rows                 contract_tokens with ones
// The one-hot rows compare a constant index row (add_index_row) with each row's label (an fp32 class
// id), like NKI's cross-entropy kernel builds them from iota (training.md A3).
#pragma once

#include "train/tile_products.h"

namespace nsim::kernels::train {

// logits [rows, classes] fp32; labels [rows, 1] fp32; class_row: fp32 [partitions, classes] holding
// 0..classes-1 on every partition. dlogits [rows, classes]; loss [1, 1] fp32, the mean. `mean_over`
// (0: rows) is the count the mean divides by: a batch computed in passes of `rows` rows each gives
// its share of the whole batch's mean loss and gradient.
void cross_entropy(KernelContext& ctx, const TileSet& logits, const TileSet& labels, const builder::Buffer& class_row,
                   TileSet& dlogits, TileSet& loss, uint32_t mean_over = 0);

}  // namespace nsim::kernels::train
