#include "train/layer_norm_backward.h"

#include <stdexcept>

namespace nsim::kernels::train {
namespace {

using builder::View;

// bn_stats statistics groups, as the forward kernel cuts them (NKI's bn_stats takes <= 512 features).
constexpr uint32_t kStatsGroupFeatures = 512;

}  // namespace

void layer_norm_backward(KernelContext& ctx, const TileSet& x, const TileSet& dy, const builder::Buffer& gamma_row,
                         float eps, const LayerNormBackwardOutputs& out) {
    if (x.rows != dy.rows || x.columns != dy.columns) throw std::logic_error("layer_norm_backward: x and dy differ");
    CoreBuilder& core = ctx.core;
    const uint32_t hidden = x.columns, groups = (hidden + kStatsGroupFeatures - 1) / kStatsGroupFeatures;
    const isa::DType f32 = isa::DType::Fp32;
    // Per token: bn_stats groups, mean, variance, rstd, mean(g), mean(g x_hat); then x_hat and g rows.
    const builder::Buffer stats = core.sbuf((3 * groups + 5) * 4, "layernorm' statistics");
    const builder::Buffer x_hat_rows = core.sbuf(uint64_t(hidden) * 4, "layernorm' x_hat");
    const builder::Buffer g_rows = core.sbuf(uint64_t(hidden) * 4, "layernorm' g");
    // dy * x_hat for every token, fp32 (the operand of dgamma's sum over tokens); dy in fp32 for dbeta.
    TileSet dy_x_hat = device::allocate_tiles(core, x.rows, hidden, f32, "dy x_hat");
    TileSet dy32 = dy;
    if (dy.dtype != f32 && out.beta) dy32 = device::allocate_tiles(core, x.rows, hidden, f32, "dy fp32");

    for (uint32_t k = 0; k < x.tiles.size(); ++k) {
        const uint32_t rows = x.rows_of(k);
        auto stat = [&](uint32_t column, uint32_t count) { return builder::tile(stats, f32, 0, rows, column, count); };
        const View groups_view = stat(0, 3 * groups), mean_var = stat(3 * groups, 2), mean = stat(3 * groups, 1);
        const View var = stat(3 * groups + 1, 1), rstd = stat(3 * groups + 2, 1);
        const View mean_g = stat(3 * groups + 3, 1), mean_g_x_hat = stat(3 * groups + 4, 1);
        const View xk = x.view(k, 0, hidden), dyk = dy.view(k, 0, hidden);
        const View x_hat = builder::tile(x_hat_rows, f32, 0, rows, 0, hidden);
        const View g = builder::tile(g_rows, f32, 0, rows, 0, hidden);
        const View dyx = dy_x_hat.view(k, 0, hidden);

        core.bn_stats(groups_view, xk);
        core.bn_aggr(mean_var, groups_view);
        core.tensor_scalar(isa::Engine::Dve, rstd, var, isa::AluOp::Add, eps, isa::AluOp::Pow, -0.5f);
        core.tensor_partition_scalar(isa::Engine::Dve, x_hat, xk, isa::AluOp::Subtract, mean, isa::AluOp::Multiply, &rstd);
        core.tensor_tensor(isa::Engine::Dve, g, dyk, builder::tile(gamma_row, f32, 0, rows, 0, hidden), isa::AluOp::Multiply);
        core.tensor_reduce(isa::Engine::Dve, mean_g, g, isa::ReduceOp::Add);
        core.tensor_tensor(isa::Engine::Dve, dyx, g, x_hat, isa::AluOp::Multiply);  // g x_hat, for its mean
        core.tensor_reduce(isa::Engine::Dve, mean_g_x_hat, dyx, isa::ReduceOp::Add);
        core.tensor_scalar(isa::Engine::Dve, stat(3 * groups + 3, 2), stat(3 * groups + 3, 2), isa::AluOp::Multiply,
                           1.0f / float(hidden));
        // x_hat * mean(g x_hat) + mean(g), subtracted from g, times rstd.
        if (out.input) {
            core.tensor_partition_scalar(isa::Engine::Dve, dyx, x_hat, isa::AluOp::Multiply, mean_g_x_hat, isa::AluOp::Add,
                                         &mean_g);
            core.tensor_tensor(isa::Engine::Dve, g, g, dyx, isa::AluOp::Subtract);
            core.tensor_partition_scalar(isa::Engine::Dve, out.input->view(k, 0, hidden), g, isa::AluOp::Multiply, rstd);
        }
        core.tensor_tensor(isa::Engine::Dve, dyx, dyk, x_hat, isa::AluOp::Multiply);
        if (dy32.dtype != dy.dtype) core.tensor_copy(ctx.side_engine(), dy32.view(k, 0, hidden), dyk);
    }
    if (out.gamma || out.beta) {
        const TileSet ones = ones_column(ctx, x.rows, f32);
        if (out.gamma) contract_tokens(ctx, ones, dy_x_hat, *out.gamma);
        if (out.beta) contract_tokens(ctx, ones, dy32, *out.beta);
    }
}

}  // namespace nsim::kernels::train
