#include "train/encoder_layer_backward.h"

#include <stdexcept>

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

// dx of a linear layer, then its weight and bias gradients into the sink (dy: the pass's tokens from
// `first_token` on).
void linear(KernelContext& ctx, const TileSet& x, const TileSet& dy, const device::DramMatrix& w, TileSet& dx,
            GradientSink& sink, uint32_t weight, uint32_t first_token = 0) {
    const ScratchScope scratch(ctx);
    linear_backward(ctx, x, dy, w, {&dx, nullptr, nullptr});
    sink.linear(ctx, x, dy, weight, weight + 1, LinearSlice{0, first_token});
}

// Rows [first, + count) of a saved activation on chip: a view of its tiles, or (its shape alone)
// loaded from its source now, into SBUF the caller's scope gives back.
TileSet on_chip(KernelContext& ctx, const EncoderLayerSaved& s, const TileSet& saved, uint32_t first, uint32_t count) {
    if (!saved.tiles.empty()) return row_tiles(saved, first, count);
    if (!s.source) throw std::logic_error("encoder_layer_backward: an activation neither on chip nor with a source");
    return s.source->load(ctx, saved, first, count);
}
TileSet on_chip(KernelContext& ctx, const EncoderLayerSaved& s, const TileSet& saved) {
    return on_chip(ctx, s, saved, 0, saved.rows);
}


}  // namespace

void encoder_layer_backward(KernelContext& ctx, const device::AttentionShape& shape, const EncoderLayerSaved& s,
                            const EncoderLayerParameters& p, const TileSet& dy, GradientSink& sink, uint32_t first,
                            TileSet& dx) {
    const isa::DType mm = ctx.dtypes.matmul;
    const uint32_t tokens = dy.rows, hidden = dy.columns, inter = p.intermediate.rows;

    // Feed-forward block: LN2, output dense, GELU, intermediate dense, and the residual, whose sum
    // (d attended) goes into d output sum's tiles. Each block's outputs are allocated before its
    // scratch and the activations it loads (SavedActivationSource), given back when it is done.
    // d output sum's SBUF is d context's once LN1's backward has read it.
    const builder::Buffer d_sum_room =
        ctx.core.sbuf_region(device::tile_set_bytes(ctx.core, tokens, hidden, mm), "d output sum, then d context");
    TileSet d_attended = device::alias_tiles(ctx.core, d_sum_room, 0, tokens, hidden, mm);
    {
        const ScratchScope ln2(ctx);
        norm_backward(ctx, on_chip(ctx, s, *s.output_sum), dy, p.output_gamma_row, p.layer_norm_eps, d_attended, sink,
                      first + kOutputNormGamma);
    }
    const LayerDropout& drop = p.dropout;
    const uint32_t chunk = ffn_chunk_tokens(s.chunk_tokens, tokens, dy.tile_rows, "encoder layer backward");
    // The gradient of a dense whose output the forward dropped: dy (rows of the pass from
    // `first_token` on) with the same mask (dy itself when none), in one buffer of the layer's, or
    // (in chunks of tokens, where SBUF is short) in SBUF of the caller's scope.
    const TileSet d_dense = drop.hidden > 0 && chunk == tokens ? tiles(ctx, tokens, hidden, mm, "d dropped dense") : TileSet{};
    auto dropped = [&](const TileSet& dy_sum, uint32_t key, uint32_t first_token) -> TileSet {
        if (drop.hidden == 0) return dy_sum;
        TileSet d = d_dense.tiles.empty() ? tiles(ctx, dy_sum.rows, dy_sum.columns, mm, "d dropped dense")
                                          : row_tiles(d_dense, first_token, dy_sum.rows);
        dropout_tokens(ctx, dy_sum, d, drop.hidden, key, drop.first_token + first_token);
        return d;
    };
    // In chunks of tokens (all of them at once by default), each chunk's d intermediate in going into
    // its pre-GELU activations' tiles (no one reads them after GELU's backward) and its d attended
    // into its rows of d output sum (which the next chunks do not read).
    for (uint32_t c = 0; c < tokens; c += chunk) {
        const ScratchScope ffn(ctx);
        TileSet d_attended_rows = row_tiles(d_attended, c, chunk);
        TileSet d_intermediate_in = on_chip(ctx, s, *s.intermediate_in, c, chunk);
        {
            const ScratchScope gelu(ctx);
            TileSet d_intermediate = tiles(ctx, chunk, inter, mm, "d intermediate");
            linear(ctx, row_tiles(*s.intermediate, c, chunk), dropped(d_attended_rows, drop.ffn_output_key, c), p.output,
                   d_intermediate, sink, first + kOutputWeight, c);
            gelu_backward(ctx, d_intermediate_in, d_intermediate, d_intermediate_in);
        }
        TileSet d_dense_in = tiles(ctx, chunk, hidden, mm, "d attended");
        linear(ctx, row_tiles(*s.attended, c, chunk), d_intermediate_in, p.intermediate, d_dense_in, sink,
               first + kIntermediateWeight, c);
        add_into(ctx, d_attended_rows, d_dense_in);  // d output sum + d dense in: d attended
    }

    // Attention block: LN1, output projection, attention, Q/K/V projections, and the residual.
    {
        const ScratchScope ln1(ctx);
        norm_backward(ctx, on_chip(ctx, s, *s.attention_sum), d_attended, p.attention_gamma_row, p.layer_norm_eps, dx,
                      sink, first + kAttentionNormGamma);
    }
    TileSet dq_t = tiles(ctx, hidden, tokens, mm, "dq^T"), dk_t = tiles(ctx, hidden, tokens, mm, "dk^T");
    TileSet dv_t = tiles(ctx, hidden, tokens, mm, "dv^T");
    {
        const ScratchScope context(ctx);
        // Loaded first, while the output projection's backward runs.
        const TileSet q = on_chip(ctx, s, *s.q), k = on_chip(ctx, s, *s.k);
        const TileSet q_t = on_chip(ctx, s, *s.q_t), k_t = on_chip(ctx, s, *s.k_t), v_t = on_chip(ctx, s, *s.v_t);
        TileSet d_context = device::alias_tiles(ctx.core, d_sum_room, 0, tokens, hidden, mm);
        {
            const ScratchScope output_dense(ctx);
            linear(ctx, *s.context, dropped(dx, drop.attention_output_key, 0), p.attention_output, d_context, sink,
                   first + kAttentionOutputWeight);
        }
        TileSet d_context_t = tiles(ctx, hidden, tokens, mm, "d context^T");
        transpose_tiles(ctx, d_context, d_context_t);
        attention_backward(ctx, shape, {&q, &k, &q_t, &k_t, &v_t, &d_context, &d_context_t, p.mask, drop.attention},
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
