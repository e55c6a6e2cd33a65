#include "train/encoder_layer_backward.h"

#include "train/activation_backward.h"
#include "train/attention_backward.h"
#include "train/layer_norm_backward.h"
#include "train/linear_backward.h"

namespace nsim::kernels::train {
namespace {

TileSet tiles(KernelContext& ctx, uint32_t rows, uint32_t columns, isa::DType dtype, const std::string& what) {
    return device::allocate_tiles(ctx.core, rows, columns, dtype, what);
}

LinearGradientTiles linear_gradient_tiles(KernelContext& ctx, const device::DramMatrix& w, const std::string& what) {
    return {tiles(ctx, w.rows, w.columns, isa::DType::Fp32, "d" + what + ".weight"),
            tiles(ctx, 1, w.rows, isa::DType::Fp32, "d" + what + ".bias")};
}

NormGradientTiles norm_gradient_tiles(KernelContext& ctx, uint32_t hidden, const std::string& what) {
    return {tiles(ctx, 1, hidden, isa::DType::Fp32, "d" + what + ".gamma"),
            tiles(ctx, 1, hidden, isa::DType::Fp32, "d" + what + ".beta")};
}

// a += b, tile by tile.
void add_into(KernelContext& ctx, TileSet& a, const TileSet& b) {
    for (uint32_t k = 0; k < a.tiles.size(); ++k)
        ctx.core.tensor_tensor(isa::Engine::Dve, a.view(k, 0, a.columns), a.view(k, 0, a.columns),
                               b.view(k, 0, b.columns), isa::AluOp::Add);
}

}  // namespace

EncoderLayerGradientTiles encoder_layer_backward(KernelContext& ctx, const device::AttentionShape& shape,
                                                 const EncoderLayerSaved& s, const EncoderLayerParameters& p,
                                                 const TileSet& dy) {
    const isa::DType mm = ctx.dtypes.matmul;
    const uint32_t tokens = dy.rows, hidden = dy.columns, inter = p.intermediate.rows;
    EncoderLayerGradientTiles g{tiles(ctx, tokens, hidden, mm, "dx"),
                                linear_gradient_tiles(ctx, p.query, "query"),
                                linear_gradient_tiles(ctx, p.key, "key"),
                                linear_gradient_tiles(ctx, p.value, "value"),
                                linear_gradient_tiles(ctx, p.attention_output, "attention.output"),
                                linear_gradient_tiles(ctx, p.intermediate, "intermediate"),
                                linear_gradient_tiles(ctx, p.output, "output"),
                                norm_gradient_tiles(ctx, hidden, "attention.norm"),
                                norm_gradient_tiles(ctx, hidden, "output.norm")};

    // Feed-forward block: LN2, output dense, GELU, intermediate dense, and the residual.
    TileSet d_output_sum = tiles(ctx, tokens, hidden, mm, "d output sum");
    layer_norm_backward(ctx, *s.output_sum, dy, p.output_gamma_row, p.layer_norm_eps,
                        {&d_output_sum, &g.output_norm.gamma, &g.output_norm.beta});
    TileSet d_intermediate = tiles(ctx, tokens, inter, mm, "d intermediate");
    linear_backward(ctx, *s.intermediate, d_output_sum, p.output, {&d_intermediate, &g.output.weight, &g.output.bias});
    TileSet d_intermediate_in = tiles(ctx, tokens, inter, mm, "d intermediate in");
    gelu_backward(ctx, *s.intermediate_in, d_intermediate, d_intermediate_in);
    TileSet d_attended = tiles(ctx, tokens, hidden, mm, "d attended");
    linear_backward(ctx, *s.attended, d_intermediate_in, p.intermediate,
                    {&d_attended, &g.intermediate.weight, &g.intermediate.bias});
    add_into(ctx, d_attended, d_output_sum);

    // Attention block: LN1, output projection, attention, Q/K/V projections, and the residual.
    layer_norm_backward(ctx, *s.attention_sum, d_attended, p.attention_gamma_row, p.layer_norm_eps,
                        {&g.input, &g.attention_norm.gamma, &g.attention_norm.beta});
    TileSet d_context = tiles(ctx, tokens, hidden, mm, "d context");
    linear_backward(ctx, *s.context, g.input, p.attention_output,
                    {&d_context, &g.attention_output.weight, &g.attention_output.bias});
    TileSet d_context_t = tiles(ctx, hidden, tokens, mm, "d context^T");
    transpose_tiles(ctx, d_context, d_context_t);
    TileSet dq_t = tiles(ctx, hidden, tokens, mm, "dq^T"), dk_t = tiles(ctx, hidden, tokens, mm, "dk^T");
    TileSet dv_t = tiles(ctx, hidden, tokens, mm, "dv^T");
    attention_backward(ctx, shape, {s.q, s.k, s.q_t, s.k_t, s.v_t, &d_context, &d_context_t, p.mask}, {&dq_t, &dk_t, &dv_t});
    const std::pair<const TileSet*, LinearGradientTiles*> projections[] = {
        {&dq_t, &g.query}, {&dk_t, &g.key}, {&dv_t, &g.value}};
    const device::DramMatrix* weights[] = {&p.query, &p.key, &p.value};
    TileSet d_projection = tiles(ctx, tokens, hidden, mm, "d projection");
    TileSet dx_part = tiles(ctx, tokens, hidden, mm, "dx part");
    for (size_t i = 0; i < 3; ++i) {
        transpose_tiles(ctx, *projections[i].first, d_projection);
        linear_backward(ctx, *s.x, d_projection, *weights[i],
                        {&dx_part, &projections[i].second->weight, &projections[i].second->bias});
        add_into(ctx, g.input, dx_part);
    }
    return g;
}

}  // namespace nsim::kernels::train
