// Softmax cross-entropy and its gradient on the device, rows token-major (one sequence - or one masked
// position, for the masked-LM loss - per partition, the classes along the free axis):
//   z_max = max_j z_j;  e = exp(z - z_max) with its row sum (one scalar-engine instruction)
//   loss_r = log(sum) + z_max - z_label        (z_label = sum_j onehot_j z_j)
//   dz = w_r (e / sum - onehot)                the gradient of the weighted loss
//   loss = sum_r w_r loss_r                    contract_tokens with the weights
// w_r is 1/rows for a mean (or 1/mean_over), or a per-row weight the caller gives (the masked-LM loss:
// 1/(masked tokens of the micro-batch), 0 for an unused prediction slot). The one-hot rows compare a
// constant index row (add_index_row) with each row's label (an fp32 class id), like NKI's cross-entropy
// kernel builds them from iota (training.md A3); a label outside the classes selects nothing.
// A vocabulary too wide for one row of SBUF goes through in chunks of classes (ChunkedCrossEntropy):
// the row maximum and sum of exponentials are kept online (the sum rescaled by exp(old max - new max)
// when a chunk raises the maximum, as NKI's cross-entropy over vocabulary chunks does), then each
// chunk's gradient is made from its logits again.
#pragma once

#include "train/tile_products.h"

namespace nsim::kernels::train {

class ChunkedCrossEntropy {
public:
    // labels [rows, 1] fp32; class_row fp32 [partitions, >= widest chunk] holding 0, 1, ...;
    // weights [rows, 1] fp32, or null: every row weighs 1 / mean_over (0: rows).
    ChunkedCrossEntropy(KernelContext& ctx, const TileSet& labels, const builder::Buffer& class_row,
                        uint32_t widest_chunk, const TileSet* weights = nullptr, uint32_t mean_over = 0);
    // The chunk of classes [first_class, + logits.columns), fp32 [rows, columns]; chunks in order from 0.
    void observe(const TileSet& logits, uint32_t first_class);
    // After every chunk was observed: loss [1, 1] fp32 = sum_r w_r loss_r.
    void loss(TileSet& loss);
    // After loss(): dlogits of a chunk (its logits again), in dlogits' dtype.
    void gradient(const TileSet& logits, uint32_t first_class, TileSet& dlogits);

private:
    enum Column : uint32_t { kMax, kSum, kPicked, kInvSum, kColumns };
    builder::View state(uint32_t tile, Column c) const { return state_.view(tile, c, 1); }
    builder::View scratch(uint32_t rows, uint32_t i) const;
    builder::View onehot(uint32_t tile, uint32_t first_class, uint32_t columns);
    void scale_rows(uint32_t tile, const builder::View& dst, const builder::View& src);

    KernelContext& ctx_;
    const TileSet& labels_;
    const TileSet* weights_;
    builder::Buffer class_row_, scalars_, exp_rows_, onehot_rows_;
    TileSet state_;  // fp32 [rows, kColumns]: the running max, sum of exponentials, label's logit, 1/sum
    float inv_rows_;
    bool first_chunk_ = true;
};

// The whole row of classes at once, a mean over rows: logits [rows, classes] fp32; labels [rows, 1]
// fp32; dlogits [rows, classes]; loss [1, 1] fp32. `mean_over` (0: rows) is the count the mean divides
// by: a batch computed in passes of `rows` rows each gives its share of the whole batch's mean loss
// and gradient.
void cross_entropy(KernelContext& ctx, const TileSet& logits, const TileSet& labels, const builder::Buffer& class_row,
                   TileSet& dlogits, TileSet& loss, uint32_t mean_over = 0);

}  // namespace nsim::kernels::train
