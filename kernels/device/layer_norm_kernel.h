// LayerNorm of the residual stream, token-major (one token per partition, statistics along the free
// axis on the vector engine: bn_stats / bn_aggr, rstd = (var + eps)^-1/2 in one tensor_scalar), and
// its feature-major copy for the next matmuls (tensor-engine transposes of 128x128 blocks, evacuated
// by the vector engine with gamma and beta applied per partition in the same instruction). x_hat
// stays fp32 (and is transposed in fp32), so each stored result is rounded once, when it is written.
//
// The token-major result is stored as x_hat * gamma + beta_plus, where beta_plus = beta + the bias of
// the dense layer whose output will next be added to it (see bert_program.cpp): that folds the
// output projection's and the FFN's biases into work layernorm does anyway. Gamma and beta_plus are
// rows broadcast over the partitions; the two element-wise passes go to GpSimd where the core has
// one, so they overlap the vector engine's next statistics.
#pragma once

#include <optional>

#include "device/kernel_context.h"

namespace nsim::kernels::device {

struct LayerNormScratch {
    std::vector<Buffer> normalized;  // token-major x_hat rows, fp32 whatever is stored (a ring)
    std::vector<Buffer> statistics;  // bn_stats groups, mean/variance, rstd, a ring
};
LayerNormScratch allocate_layer_norm_scratch(CoreBuilder& core, uint32_t hidden, const DtypePlan& dtypes);

struct LayerNormParams {
    std::optional<Buffer> gamma_row;  // [partitions, hidden] broadcast rows (residual dtype); none: 1
    Buffer beta_plus_row;             // [partitions, hidden]
    std::optional<ColumnParams> gamma_column, beta_column;  // for the feature-major copy; none: 1 / 0
    float eps = 1e-12f;
    bool normalize = true;  // false: the rows are already normalised (host-side embedding output)
};

// resid (token-major, holds the pre-norm sum) -> resid = LN(resid) * gamma + beta_plus and
// feature_major = (LN(resid) * gamma + beta)^T. Token tiles are processed in order, so the next
// kernel can start on the first ones.
void layer_norm(KernelContext& ctx, TileSet& resid, TileSet& feature_major, LayerNormScratch& scratch,
                const LayerNormParams& params);

}  // namespace nsim::kernels::device
