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

// The SBUF the enclosed kernels allocate for their own scratch, given back when the scope ends (what
// they write into is allocated before it), so that a layer's backward holds only what it passes on.
class ScratchScope {
public:
    explicit ScratchScope(KernelContext& ctx) : core_(ctx.core), mark_(ctx.core.sbuf_mark()) {}
    ~ScratchScope() { core_.sbuf_rewind(mark_); }
    ScratchScope(const ScratchScope&) = delete;
    ScratchScope& operator=(const ScratchScope&) = delete;

private:
    builder::CoreBuilder& core_;
    uint64_t mark_;
};

// Layernorm backward with its gamma and beta gradients as one block each of `sink`.
void norm_backward(KernelContext& ctx, const TileSet& x, const TileSet& dy, const builder::Buffer& gamma_row, float eps,
                   TileSet& dx, GradientSink& sink, uint32_t gamma) {
    const ScratchScope scratch(ctx);
    const uint32_t hidden = dy.columns;
    TileSet dgamma = sink.begin(gamma, 0, 0, 1, hidden), dbeta = sink.begin(gamma + 1, 0, 0, 1, hidden);
    layer_norm_backward(ctx, x, dy, gamma_row, eps, {&dx, &dgamma, &dbeta});
    sink.end(gamma, dgamma, 0, 0);
    sink.end(gamma + 1, dbeta, 0, 0);
}

// dx of a linear layer, then its weight and bias gradients into the sink.
void linear(KernelContext& ctx, const TileSet& x, const TileSet& dy, const device::DramMatrix& w, TileSet& dx,
            GradientSink& sink, uint32_t weight) {
    const ScratchScope scratch(ctx);
    linear_backward(ctx, x, dy, w, {&dx, nullptr, nullptr});
    sink.linear(ctx, x, dy, weight, weight + 1, 0);
}

}  // namespace

void encoder_layer_backward(KernelContext& ctx, const device::AttentionShape& shape, const EncoderLayerSaved& s,
                            const EncoderLayerParameters& p, const TileSet& dy, GradientSink& sink, uint32_t first,
                            TileSet& dx) {
    const isa::DType mm = ctx.dtypes.matmul;
    const uint32_t tokens = dy.rows, hidden = dy.columns, inter = p.intermediate.rows;

    // Feed-forward block: LN2, output dense, GELU, intermediate dense, and the residual, whose sum
    // (d attended) goes into d output sum's tiles. d intermediate is given back after GELU's backward,
    // as the attention block's d context is before the projections: each block's outputs are allocated
    // before its scratch (BERT-large in passes of two sequences fits SBUF so).
    TileSet d_attended = tiles(ctx, tokens, hidden, mm, "d output sum");
    norm_backward(ctx, *s.output_sum, dy, p.output_gamma_row, p.layer_norm_eps, d_attended, sink, first + kOutputNormGamma);
    const LayerDropout& drop = p.dropout;
    // The gradient of a dense whose output the forward dropped: dy with the same mask (dy itself when none).
    TileSet d_dense = drop.hidden > 0 ? tiles(ctx, tokens, hidden, mm, "d dropped dense") : TileSet{};
    auto dropped = [&](const TileSet& dy_sum, uint32_t key) -> const TileSet& {
        if (drop.hidden == 0) return dy_sum;
        dropout_tokens(ctx, dy_sum, d_dense, drop.hidden, key, drop.first_token);
        return d_dense;
    };
    // d intermediate in goes into the pre-GELU activations' tiles (no one reads them after GELU's backward).
    TileSet d_intermediate_in = *s.intermediate_in;
    {
        const ScratchScope ffn(ctx);
        TileSet d_intermediate = tiles(ctx, tokens, inter, mm, "d intermediate");
        linear(ctx, *s.intermediate, dropped(d_attended, drop.ffn_output_key), p.output, d_intermediate, sink,
               first + kOutputWeight);
        gelu_backward(ctx, *s.intermediate_in, d_intermediate, d_intermediate_in);
    }
    {
        const ScratchScope residual(ctx);
        TileSet d_dense_in = tiles(ctx, tokens, hidden, mm, "d attended");
        linear(ctx, *s.attended, d_intermediate_in, p.intermediate, d_dense_in, sink, first + kIntermediateWeight);
        add_into(ctx, d_attended, d_dense_in);  // d output sum + d dense in: d attended
    }

    // Attention block: LN1, output projection, attention, Q/K/V projections, and the residual.
    norm_backward(ctx, *s.attention_sum, d_attended, p.attention_gamma_row, p.layer_norm_eps, dx, sink,
                  first + kAttentionNormGamma);
    TileSet dq_t = tiles(ctx, hidden, tokens, mm, "dq^T"), dk_t = tiles(ctx, hidden, tokens, mm, "dk^T");
    TileSet dv_t = tiles(ctx, hidden, tokens, mm, "dv^T");
    {
        const ScratchScope context(ctx);
        TileSet d_context = tiles(ctx, tokens, hidden, mm, "d context");
        linear(ctx, *s.context, dropped(dx, drop.attention_output_key), p.attention_output, d_context, sink,
               first + kAttentionOutputWeight);
        TileSet d_context_t = tiles(ctx, hidden, tokens, mm, "d context^T");
        transpose_tiles(ctx, d_context, d_context_t);
        attention_backward(ctx, shape, {s.q, s.k, s.q_t, s.k_t, s.v_t, &d_context, &d_context_t, p.mask, drop.attention},
                           {&dq_t, &dk_t, &dv_t});
    }
    const std::pair<const TileSet*, uint32_t> projections[] = {
        {&dq_t, kQueryWeight}, {&dk_t, kKeyWeight}, {&dv_t, kValueWeight}};
    const device::DramMatrix* weights[] = {&p.query, &p.key, &p.value};
    TileSet d_projection = tiles(ctx, tokens, hidden, mm, "d projection");
    TileSet dx_part = tiles(ctx, tokens, hidden, mm, "dx part");
    for (size_t i = 0; i < 3; ++i) {
        const ScratchScope scratch(ctx);
        transpose_tiles(ctx, *projections[i].first, d_projection);
        linear(ctx, *s.x, d_projection, *weights[i], dx_part, sink, first + projections[i].second);
        add_into(ctx, dx, dx_part);
    }
}

EncoderLayerGradientTiles encoder_layer_backward(KernelContext& ctx, const device::AttentionShape& shape,
                                                 const EncoderLayerSaved& s, const EncoderLayerParameters& p,
                                                 const TileSet& dy) {
    const uint32_t tokens = dy.rows, hidden = dy.columns;
    EncoderLayerGradientTiles g{tiles(ctx, tokens, hidden, ctx.dtypes.matmul, "dx"),
                                linear_gradient_tiles(ctx, p.query, "query"),
                                linear_gradient_tiles(ctx, p.key, "key"),
                                linear_gradient_tiles(ctx, p.value, "value"),
                                linear_gradient_tiles(ctx, p.attention_output, "attention.output"),
                                linear_gradient_tiles(ctx, p.intermediate, "intermediate"),
                                linear_gradient_tiles(ctx, p.output, "output"),
                                norm_gradient_tiles(ctx, hidden, "attention.norm"),
                                norm_gradient_tiles(ctx, hidden, "output.norm")};
    OnChipGradients sink;
    const std::pair<LayerParameter, LinearGradientTiles*> linears[] = {
        {kQueryWeight, &g.query}, {kKeyWeight, &g.key}, {kValueWeight, &g.value},
        {kAttentionOutputWeight, &g.attention_output}, {kIntermediateWeight, &g.intermediate}, {kOutputWeight, &g.output}};
    for (const auto& [id, lin] : linears) {
        sink.add(id, &lin->weight);
        sink.add(id + 1, &lin->bias);
    }
    for (const auto& [id, norm] : {std::pair{kAttentionNormGamma, &g.attention_norm}, std::pair{kOutputNormGamma, &g.output_norm}}) {
        sink.add(id, &norm->gamma);
        sink.add(id + 1, &norm->beta);
    }
    encoder_layer_backward(ctx, shape, s, p, dy, sink, 0, g.input);
    return g;
}

}  // namespace nsim::kernels::train
