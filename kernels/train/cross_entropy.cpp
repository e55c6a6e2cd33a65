#include "train/cross_entropy.h"

#include <stdexcept>

namespace nsim::kernels::train {

using builder::View;

namespace {
constexpr isa::DType kF32 = isa::DType::Fp32;
constexpr isa::Engine kDve = isa::Engine::Dve;
constexpr uint32_t kScratchColumns = 4;
}  // namespace

ChunkedCrossEntropy::ChunkedCrossEntropy(KernelContext& ctx, const TileSet& labels, const builder::Buffer& class_row,
                                         uint32_t widest_chunk, const TileSet* weights, uint32_t mean_over)
    : ctx_(ctx), labels_(labels), weights_(weights), class_row_(class_row),
      scalars_(ctx.core.sbuf(kScratchColumns * 4, "cross-entropy scalars")),
      exp_rows_(ctx.core.sbuf(uint64_t(widest_chunk) * 4, "cross-entropy exp")),
      onehot_rows_(ctx.core.sbuf(uint64_t(widest_chunk) * 4, "cross-entropy one-hot")),
      state_(device::allocate_tiles(ctx.core, labels.rows, kColumns, kF32, "cross-entropy row state")),
      inv_rows_(1.0f / float(mean_over ? mean_over : labels.rows)) {
    if (labels.columns != 1 || labels.dtype != kF32) throw std::logic_error("cross_entropy: labels are one fp32 per row");
    if (weights && (weights->rows != labels.rows || weights->columns != 1 || weights->dtype != kF32))
        throw std::logic_error("cross_entropy: weights are one fp32 per row");
}

View ChunkedCrossEntropy::scratch(uint32_t rows, uint32_t i) const { return builder::tile(scalars_, kF32, 0, rows, i, 1); }

// One-hot rows of the labels over classes [first_class, + columns) of tile `tile`.
View ChunkedCrossEntropy::onehot(uint32_t tile, uint32_t first_class, uint32_t columns) {
    const uint32_t n = labels_.rows_of(tile);
    const View shifted = scratch(n, 0), out = builder::tile(onehot_rows_, kF32, 0, n, 0, columns);
    ctx_.core.tensor_scalar(kDve, shifted, labels_.view(tile, 0, 1), isa::AluOp::Subtract, float(first_class));
    ctx_.core.tensor_partition_scalar(kDve, out, builder::tile(class_row_, kF32, 0, n, 0, columns), isa::AluOp::IsEqual,
                                      shifted);
    return out;
}

void ChunkedCrossEntropy::scale_rows(uint32_t tile, const View& dst, const View& src) {
    if (weights_) ctx_.core.tensor_partition_scalar(kDve, dst, src, isa::AluOp::Multiply, weights_->view(tile, 0, 1));
    else ctx_.core.tensor_scalar(kDve, dst, src, isa::AluOp::Multiply, inv_rows_);
}

void ChunkedCrossEntropy::observe(const TileSet& logits, uint32_t first_class) {
    const uint32_t classes = logits.columns;
    if (logits.rows != labels_.rows || logits.dtype != kF32) throw std::logic_error("cross_entropy: logits shape");
    if (uint64_t(classes) * 4 > exp_rows_.bytes) throw std::logic_error("cross_entropy: a chunk wider than its rooms");
    CoreBuilder& core = ctx_.core;
    for (uint32_t k = 0; k < logits.tiles.size(); ++k) {
        const uint32_t n = logits.rows_of(k);
        const View z = logits.view(k, 0, classes), e = builder::tile(exp_rows_, kF32, 0, n, 0, classes);
        const View top = scratch(n, 1), neg_top = scratch(n, 2), part = scratch(n, 3);
        // The label's logit: the one-hot row times the logits, summed in e's room before exp fills it.
        core.tensor_tensor(kDve, e, onehot(k, first_class, classes), z, isa::AluOp::Multiply);
        if (first_chunk_) {
            core.tensor_reduce(kDve, state(k, kPicked), e, isa::ReduceOp::Add);
            core.tensor_reduce(kDve, state(k, kMax), z, isa::ReduceOp::Max);
            core.tensor_scalar(kDve, neg_top, state(k, kMax), isa::AluOp::Multiply, -1.0f);
            const View sum = state(k, kSum);
            core.activation(e, z, isa::ActivationFunction::Exp, 1.0f, &neg_top, isa::ReduceOp::Add, &sum);
            continue;
        }
        core.tensor_reduce(kDve, part, e, isa::ReduceOp::Add);
        core.tensor_tensor(kDve, state(k, kPicked), state(k, kPicked), part, isa::AluOp::Add);
        // The new maximum; the sum so far rescaled to it: sum * exp(old max - new max).
        core.tensor_reduce(kDve, top, z, isa::ReduceOp::Max);
        core.tensor_tensor(kDve, top, top, state(k, kMax), isa::AluOp::Max);
        core.tensor_tensor(kDve, part, state(k, kMax), top, isa::AluOp::Subtract);
        core.activation(part, part, isa::ActivationFunction::Exp);
        core.tensor_tensor(kDve, state(k, kSum), state(k, kSum), part, isa::AluOp::Multiply);
        core.tensor_copy(kDve, state(k, kMax), top);
        core.tensor_scalar(kDve, neg_top, top, isa::AluOp::Multiply, -1.0f);
        core.activation(e, z, isa::ActivationFunction::Exp, 1.0f, &neg_top, isa::ReduceOp::Add, &part);
        core.tensor_tensor(kDve, state(k, kSum), state(k, kSum), part, isa::AluOp::Add);
    }
    first_chunk_ = false;
}

void ChunkedCrossEntropy::loss(TileSet& loss) {
    if (loss.dtype != kF32) throw std::logic_error("cross_entropy: the loss is fp32");
    CoreBuilder& core = ctx_.core;
    const uint32_t rows = labels_.rows;
    TileSet row_loss = device::allocate_tiles(core, rows, 1, kF32, "cross-entropy per row");
    for (uint32_t k = 0; k < state_.tiles.size(); ++k) {
        const uint32_t n = state_.rows_of(k);
        const View lse = scratch(n, 1);
        core.activation(lse, state(k, kSum), isa::ActivationFunction::Log);
        core.activation(state(k, kInvSum), state(k, kSum), isa::ActivationFunction::Reciprocal);
        // loss_r = (lse + max) - picked
        core.tensor_tensor(kDve, lse, lse, state(k, kMax), isa::AluOp::Add);
        core.tensor_tensor(kDve, row_loss.view(k, 0, 1), lse, state(k, kPicked), isa::AluOp::Subtract);
    }
    if (weights_) {
        contract_tokens(ctx_, *weights_, row_loss, loss);
        return;
    }
    const TileSet ones = ones_column(ctx_, rows, kF32);
    contract_tokens(ctx_, ones, row_loss, loss);
    core.tensor_scalar(kDve, loss.view(0, 0, 1), loss.view(0, 0, 1), isa::AluOp::Multiply, inv_rows_);
}

void ChunkedCrossEntropy::gradient(const TileSet& logits, uint32_t first_class, TileSet& dlogits) {
    const uint32_t classes = logits.columns;
    if (dlogits.rows != logits.rows || dlogits.columns != classes) throw std::logic_error("cross_entropy: dlogits shape");
    CoreBuilder& core = ctx_.core;
    for (uint32_t k = 0; k < logits.tiles.size(); ++k) {
        const uint32_t n = logits.rows_of(k);
        const View e = builder::tile(exp_rows_, kF32, 0, n, 0, classes), neg_top = scratch(n, 2);
        core.tensor_scalar(kDve, neg_top, state(k, kMax), isa::AluOp::Multiply, -1.0f);
        core.activation(e, logits.view(k, 0, classes), isa::ActivationFunction::Exp, 1.0f, &neg_top);
        // dz = w (e * (1/sum) - onehot)
        core.tensor_partition_scalar(kDve, e, e, isa::AluOp::Multiply, state(k, kInvSum));
        core.tensor_tensor(kDve, e, e, onehot(k, first_class, classes), isa::AluOp::Subtract);
        scale_rows(k, dlogits.view(k, 0, classes), e);
    }
}

void cross_entropy(KernelContext& ctx, const TileSet& logits, const TileSet& labels, const builder::Buffer& class_row,
                   TileSet& dlogits, TileSet& loss, uint32_t mean_over) {
    ChunkedCrossEntropy ce(ctx, labels, class_row, logits.columns, nullptr, mean_over);
    ce.observe(logits, 0);
    ce.loss(loss);
    ce.gradient(logits, 0, dlogits);
}

}  // namespace nsim::kernels::train
