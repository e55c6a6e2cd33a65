#include "train/classifier_head_backward.h"

#include "train/activation_backward.h"
#include "train/embedding_backward.h"
#include "train/linear_backward.h"

namespace nsim::kernels::train {

void classifier_head_backward(KernelContext& ctx, const ClassifierHeadInputs& in, const ClassifierHeadOutputs& out) {
    const uint32_t batch = in.cls->rows, hidden = in.cls->columns;
    const isa::DType mm = in.cls->dtype;
    TileSet dpooled = device::allocate_tiles(ctx.core, batch, hidden, mm, "dpooled");
    linear_backward(ctx, *in.pooled, *in.dlogits, in.classifier, {&dpooled, out.classifier_weight, out.classifier_bias});
    TileSet dz = device::allocate_tiles(ctx.core, batch, hidden, mm, "dpooler");
    tanh_backward(ctx, *in.pooled, dpooled, dz);
    TileSet dcls = device::allocate_tiles(ctx.core, batch, hidden, mm, "dcls");
    linear_backward(ctx, *in.cls, dz, in.pooler, {&dcls, out.pooler_weight, out.pooler_bias});
    if (out.hidden) embedding_backward(ctx, *in.positions, dcls, in.index_row, *out.hidden);
}

}  // namespace nsim::kernels::train
