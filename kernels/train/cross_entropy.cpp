#include "train/cross_entropy.h"

#include <stdexcept>

namespace nsim::kernels::train {

using builder::View;

void cross_entropy(KernelContext& ctx, const TileSet& logits, const TileSet& labels, const builder::Buffer& class_row,
                   TileSet& dlogits, TileSet& loss, uint32_t mean_over) {
    const uint32_t rows = logits.rows, classes = logits.columns;
    if (labels.rows != rows || labels.columns != 1 || dlogits.rows != rows || dlogits.columns != classes)
        throw std::logic_error("cross_entropy: operand shapes");
    if (logits.dtype != isa::DType::Fp32 || labels.dtype != isa::DType::Fp32 || loss.dtype != isa::DType::Fp32)
        throw std::logic_error("cross_entropy: logits, labels and loss are fp32");
    CoreBuilder& core = ctx.core;
    const isa::DType f32 = isa::DType::Fp32;
    const isa::Engine dve = isa::Engine::Dve;
    // Per row: max, -max, sum, log-sum-exp, 1/sum, the label's logit; then exp and one-hot rows.
    const builder::Buffer scalars = core.sbuf(6 * 4, "cross-entropy scalars");
    const builder::Buffer exp_rows = core.sbuf(uint64_t(classes) * 4, "cross-entropy exp");
    const builder::Buffer onehot_rows = core.sbuf(uint64_t(classes) * 4, "cross-entropy one-hot");
    TileSet row_loss = device::allocate_tiles(core, rows, 1, f32, "cross-entropy per row");
    const float inv_rows = 1.0f / float(mean_over ? mean_over : rows);

    for (uint32_t k = 0; k < logits.tiles.size(); ++k) {
        const uint32_t n = logits.rows_of(k);
        auto scalar = [&](uint32_t i) { return builder::tile(scalars, f32, 0, n, i, 1); };
        const View top = scalar(0), neg_top = scalar(1), sum = scalar(2), lse = scalar(3), inv_sum = scalar(4),
                   picked = scalar(5);
        const View z = logits.view(k, 0, classes), label = labels.view(k, 0, 1);
        const View e = builder::tile(exp_rows, f32, 0, n, 0, classes);
        const View onehot = builder::tile(onehot_rows, f32, 0, n, 0, classes);

        core.tensor_partition_scalar(dve, onehot, builder::tile(class_row, f32, 0, n, 0, classes), isa::AluOp::IsEqual,
                                     label);
        // The label's logit: the one-hot row times the logits, summed in e's room before exp fills it.
        core.tensor_tensor(dve, e, onehot, z, isa::AluOp::Multiply);
        core.tensor_reduce(dve, picked, e, isa::ReduceOp::Add);
        core.tensor_reduce(dve, top, z, isa::ReduceOp::Max);
        core.tensor_scalar(dve, neg_top, top, isa::AluOp::Multiply, -1.0f);
        core.activation(e, z, isa::ActivationFunction::Exp, 1.0f, &neg_top, isa::ReduceOp::Add, &sum);
        core.activation(lse, sum, isa::ActivationFunction::Log);
        core.activation(inv_sum, sum, isa::ActivationFunction::Reciprocal);
        // loss_r = (lse + max) - picked
        core.tensor_tensor(dve, lse, lse, top, isa::AluOp::Add);
        core.tensor_tensor(dve, row_loss.view(k, 0, 1), lse, picked, isa::AluOp::Subtract);
        // dz = (e * (1/sum) - onehot) / rows
        core.tensor_partition_scalar(dve, e, e, isa::AluOp::Multiply, inv_sum);
        core.tensor_tensor(dve, e, e, onehot, isa::AluOp::Subtract);
        core.tensor_scalar(dve, dlogits.view(k, 0, classes), e, isa::AluOp::Multiply, inv_rows);
    }
    const TileSet ones = ones_column(ctx, rows, f32);
    contract_tokens(ctx, ones, row_loss, loss);
    core.tensor_scalar(dve, loss.view(0, 0, 1), loss.view(0, 0, 1), isa::AluOp::Multiply, inv_rows);
}

}  // namespace nsim::kernels::train
