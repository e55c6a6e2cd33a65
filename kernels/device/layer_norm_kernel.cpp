#include "device/layer_norm_kernel.h"

#include <algorithm>
#include <stdexcept>

namespace nsim::kernels::device {
namespace {

constexpr uint32_t kRowTileRing = 2;  // scratch slots: one row tile normalised while the next one is read
// bn_stats statistics groups: one per this many features (NKI's bn_stats takes at most 512 per call).
constexpr uint32_t kStatsGroupFeatures = 512;

uint32_t stats_groups(uint32_t hidden) { return (hidden + kStatsGroupFeatures - 1) / kStatsGroupFeatures; }

}  // namespace

LayerNormScratch allocate_layer_norm_scratch(CoreBuilder& core, uint32_t hidden, const DtypePlan&) {
    LayerNormScratch s;
    for (uint32_t i = 0; i < kRowTileRing; ++i) {
        s.normalized.push_back(core.sbuf(uint64_t(hidden) * 4, "layernorm x_hat"));
        // 3 per group (count, mean, m2), then mean, variance, rstd.
        s.statistics.push_back(core.sbuf((3 * stats_groups(hidden) + 3) * 4, "layernorm statistics"));
    }
    return s;
}

void layer_norm(KernelContext& ctx, TileSet& resid, TileSet& feature_major, LayerNormScratch& scratch,
                const LayerNormParams& params) {
    CoreBuilder& core = ctx.core;
    const uint32_t hidden = resid.columns;
    if (feature_major.rows != hidden || feature_major.columns != resid.rows)
        throw std::logic_error("layer_norm: feature-major shape");
    const isa::DType act = resid.dtype;
    const uint32_t groups = stats_groups(hidden);
    const std::vector<Range> feature_tiles = split(hidden, feature_major.tile_rows);
    const uint32_t per_bank = std::min<uint32_t>(CoreBuilder::kPsumGranules,
                                                 CoreBuilder::kPsumGranules * ctx.granule_fp32_elements() / resid.tile_rows);
    const isa::Engine side = ctx.side_engine();

    for (uint32_t j = 0; j < resid.tiles.size(); ++j) {
        const uint32_t rows = resid.rows_of(j), slot = j % kRowTileRing;
        const View z = resid.view(j, 0, hidden);
        View x_hat = z;  // already normalised rows are transposed as they are
        if (params.normalize) {
            const Buffer& st = scratch.statistics[slot];
            const View stats = builder::tile(st, isa::DType::Fp32, 0, rows, 0, 3 * groups);
            const View mean_var = builder::tile(st, isa::DType::Fp32, 0, rows, 3 * groups, 2);
            const View mean = builder::tile(st, isa::DType::Fp32, 0, rows, 3 * groups, 1);
            const View var = builder::tile(st, isa::DType::Fp32, 0, rows, 3 * groups + 1, 1);
            const View rstd = builder::tile(st, isa::DType::Fp32, 0, rows, 3 * groups + 2, 1);
            core.bn_stats(stats, z);
            core.bn_aggr(mean_var, stats);
            core.tensor_scalar(isa::Engine::Dve, rstd, var, isa::AluOp::Add, params.eps, isa::AluOp::Pow, -0.5f);
            x_hat = builder::tile(scratch.normalized[slot], isa::DType::Fp32, 0, rows, 0, hidden);
            core.tensor_partition_scalar(isa::Engine::Dve, x_hat, z, isa::AluOp::Subtract, mean, isa::AluOp::Multiply,
                                         &rstd);
        }
        // Feature-major copy: transpose 128-feature blocks, up to a bank's worth per PSUM bank.
        uint32_t bank = 0;
        for (uint32_t i = 0; i < feature_tiles.size(); ++i) {
            const Range f = feature_tiles[i];
            if (i % per_bank == 0) bank = ctx.psum.next_bank();
            const uint32_t element = (i % per_bank) * resid.tile_rows;
            const View transposed = psum_tile(core, bank, f.size, element, rows);
            core.pe_transpose(transposed, builder::tile(x_hat.buffer, x_hat.ap.dtype, 0, rows, f.begin, f.size));
            const View dst = feature_major.view(i, j * resid.tile_rows, rows).part();
            if (params.gamma_column) {
                const View g = params.gamma_column->column(i, f.size), b = params.beta_column->column(i, f.size);
                core.tensor_partition_scalar(isa::Engine::Dve, dst, transposed, isa::AluOp::Multiply, g,
                                             isa::AluOp::Add, &b);
            } else {
                core.tensor_copy(isa::Engine::Dve, dst, transposed);
            }
        }
        // Token-major: x_hat * gamma + beta_plus into the residual; the product stays in x_hat (fp32),
        // so the residual's dtype rounds the result once.
        const View beta = builder::tile(params.beta_plus_row, act, 0, rows, 0, hidden);
        if (params.gamma_row)
            core.tensor_tensor(side, x_hat, x_hat, builder::tile(*params.gamma_row, act, 0, rows, 0, hidden),
                               isa::AluOp::Multiply);
        core.tensor_tensor(side, z, x_hat, beta, isa::AluOp::Add);
    }
}

}  // namespace nsim::kernels::device
