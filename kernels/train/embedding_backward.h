// Backward of an embedding lookup (device/embedding_kernel.h gathers rows by token id): dy's rows
// scatter-added into the table's gradient. The ISA has no scatter-add DMA, so it is a matmul, as the
// forward's first one-hot formulation was: for each block of up to 128 table rows, one-hot rows
// onehot[t, v] = (id_t == v) are built token-major on the vector engine (an index row compared with
// each token's id), and contract_tokens gives dTable[v, h] = sum_t onehot[t, v] dy[t, h]. Ids repeated
// in a batch add up exactly as a scatter-add does. Cost grows with the table's rows (a whole
// vocabulary is ~240 blocks of 128): cheap for position and token-type tables; for the word table a
// gather of the touched rows would do less work (not built yet).
#pragma once

#include "train/tile_products.h"

namespace nsim::kernels::train {

// ids [tokens, 1] fp32 (exact ids < 2^24); dy [tokens, hidden] token-major; index_row fp32
// [partitions, >= 128] holding 0, 1, ... (add_index_row); table_grad [rows, hidden]: the gradient of
// table rows [first_row, first_row + rows) (a large table's in parts).
void embedding_backward(KernelContext& ctx, const TileSet& ids, const TileSet& dy, const builder::Buffer& index_row,
                        TileSet& table_grad, uint32_t first_row = 0);

}  // namespace nsim::kernels::train
