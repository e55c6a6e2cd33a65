#include "train/training_forward.h"

#include "train/activation_spill.h"

namespace nsim::kernels::train {
namespace {

using builder::View;
using device::ColumnParams;

class Forward {
public:
    Forward(KernelContext& ctx, builder::DmaChannel& channel, const TrainedBert& model, const ForwardInputs& in,
            device::AttentionScratch& attention)
        : ctx_(ctx), channel_(channel), model_(model), in_(in), attention_(attention),
          tokens_(in.shape.batch * in.shape.seq), hidden_(in.shape.heads * in.shape.head_size),
          own_ring_(attention.scores.empty()) {}

    ForwardTiles run() {
        ForwardTiles f;
        f.embedding_sum = tiles(tokens_, hidden_, ctx_.dtypes.activation, "embedding sum");
        if (in_.spill) {
            // The spare carry's token-major tiles first, then what the backward's layers may have.
            const uint32_t spare = uint32_t(model_.layers.size() + 1) % 2;
            carries_[spare].x = tiles(tokens_, hidden_, ctx_.dtypes.activation, "layer input");
            f.spare = carries_[spare].x;
            f.spare_mark = ctx_.core.sbuf_mark();
            carries_[1 - spare].x = tiles(tokens_, hidden_, ctx_.dtypes.activation, "layer input");
            for (Carry& c : carries_) c.x_t = tiles(hidden_, tokens_, ctx_.dtypes.matmul, "layer input^T");
        }
        zero_value_bias_ = zero_columns(ctx_, (hidden_ + tile_rows() - 1) / tile_rows());
        // With a spill the layernorm's scratch and the softmax's ring are the embedding's and then
        // each layer's, given back with the layer's SBUF (so the heads' backward has them).
        if (!in_.spill) allocate_scratch();
        layer_mark_ = ctx_.core.sbuf_mark();
        if (in_.spill) allocate_scratch();
        const builder::Buffer region =
            ctx_.core.sbuf_region(device::embedding_scratch_bytes(hidden_, ctx_.dtypes), "embedding scratch");
        device::EmbeddingScratch scratch = device::alias_embedding_scratch(ctx_.core, region, 0, hidden_, ctx_.dtypes);
        device::device_embedding(ctx_, model_.tables, in_.input_ids, in_.token_types, in_.first_row, in_.shape.batch,
                                 in_.shape.seq, channel_, scratch, f.embedding_sum);
        TileSet x, x_t;
        carry(0, x, x_t);
        normalized(f.embedding_sum, model_.embedding_norm, "embedding output", x, x_t);
        if (in_.dropout.hidden > 0) {
            dropout_tokens(ctx_, x, x, in_.dropout.hidden, in_.dropout.embedding_key(), in_.dropout.first_token);
            transpose_tiles(ctx_, x, x_t);
        }
        for (uint32_t l = 0; l < model_.layers.size(); ++l) {
            if (in_.spill) {
                ctx_.core.sbuf_rewind(layer_mark_);
                allocate_scratch();
            }
            const TrainedLayer layer = with_on_chip_rows(ctx_, channel_, model_.layers[l]);
            LayerActivationTiles a = encoder_layer(l, layer, in_.dropout.layer(l), std::move(x), std::move(x_t));
            carry(l + 1, x, x_t);
            normalized(a.output_sum, layer.output_norm, "layer output", x, x_t);
            if (in_.spill) in_.spill->store(ctx_, l, a, in_.first_row * in_.shape.seq);
            else f.layers.push_back(std::move(a));
        }
        if (in_.spill) ctx_.core.sbuf_rewind(layer_mark_);
        f.output = std::move(x);
        f.output_t = std::move(x_t);
        head(f);
        return f;
    }

private:
    // The layernorm's scratch and, unless the caller's attention scratch has one, the softmax's ring.
    void allocate_scratch() {
        norm_scratch_ = device::allocate_layer_norm_scratch(ctx_.core, hidden_, ctx_.dtypes);
        if (own_ring_) device::allocate_softmax_ring(ctx_.core, in_.shape, ctx_.dtypes, attention_);
    }

    // With a spill, layer l's input and output live in the two carries in turn (empty otherwise:
    // normalized allocates them).
    void carry(uint32_t l, TileSet& x, TileSet& x_t) const {
        x = carries_[l % 2].x;
        x_t = carries_[l % 2].x_t;
    }
    uint32_t tile_rows() const { return device::partition_tile_rows(ctx_.core.spec()); }
    TileSet tiles(uint32_t rows, uint32_t columns, isa::DType dtype, const std::string& what) {
        return device::allocate_tiles(ctx_.core, rows, columns, dtype, what);
    }
    TileSet transposed(const TileSet& in, isa::DType dtype, const std::string& what) {
        TileSet out = tiles(in.columns, in.rows, dtype, what);
        transpose_tiles(ctx_, in, out);
        return out;
    }
    void copy(const TileSet& from, TileSet& to) {
        for (uint32_t k = 0; k < from.tiles.size(); ++k)
            ctx_.core.tensor_copy(isa::Engine::Dve, to.view(k, 0, to.columns), from.view(k, 0, from.columns));
    }
    // a += the bias row (token-major outputs of token_major_linear).
    void add_bias_row(TileSet& a, const builder::Buffer& row) {
        for (uint32_t k = 0; k < a.tiles.size(); ++k)
            ctx_.core.tensor_tensor(isa::Engine::Dve, a.view(k, 0, a.columns), a.view(k, 0, a.columns),
                                    builder::tile(row, isa::DType::Fp32, 0, a.rows_of(k), 0, a.columns), isa::AluOp::Add);
    }
    // y = x W^T + b into the pre-norm sum `sum` (which holds the residual); with dropout, y is
    // made in a tile of its own (its SBUF given back after), dropped, and added.
    void residual_linear(const TileSet& in_t, const TrainedLinear& w, TileSet& sum, float dropout, uint32_t key,
                         uint32_t first_token) {
        if (dropout == 0) {
            device::token_major_linear(ctx_, in_t, w.forward, sum, device::TokenEpilogue::AddInto);
            add_bias_row(sum, *w.bias_row);
            return;
        }
        const uint64_t mark = ctx_.core.sbuf_mark();
        TileSet y = tiles(sum.rows, sum.columns, sum.dtype, "dense output");
        device::token_major_linear(ctx_, in_t, w.forward, y, device::TokenEpilogue::Store);
        add_bias_row(y, *w.bias_row);
        dropout_tokens(ctx_, y, y, dropout, key, first_token);
        for (uint32_t k = 0; k < sum.tiles.size(); ++k)
            ctx_.core.tensor_tensor(isa::Engine::Dve, sum.view(k, 0, sum.columns), sum.view(k, 0, sum.columns),
                                    y.view(k, 0, y.columns), isa::AluOp::Add);
        ctx_.core.sbuf_rewind(mark);
    }
    // LN(sum) token-major in `x` and feature-major in `x_t`; `sum` is kept.
    // x and x_t: given buffers, or (empty) new ones.
    void normalized(const TileSet& sum, const TrainedNorm& norm, const std::string& what, TileSet& x, TileSet& x_t) {
        if (x.tiles.empty()) x = tiles(sum.rows, hidden_, ctx_.dtypes.activation, what);
        if (x_t.tiles.empty()) x_t = tiles(hidden_, sum.rows, ctx_.dtypes.matmul, what + "^T");
        copy(sum, x);
        device::LayerNormParams p;
        p.gamma_row = norm.gamma_row;
        p.beta_plus_row = norm.beta_row;
        p.gamma_column = norm.gamma_column;
        p.beta_column = norm.beta_column;
        p.eps = in_.layer_norm_eps;
        device::layer_norm(ctx_, x, x_t, norm_scratch_, p);
    }
    // Over x_t's token columns `columns` (all of them by default).
    TileSet projection_t(const TileSet& x_t, const TrainedLinear& w, isa::ActivationFunction func, const std::string& what,
                         std::optional<device::Range> columns = std::nullopt) {
        TileSet out = tiles(w.forward.columns, columns ? columns->size : x_t.columns, ctx_.dtypes.matmul, what);
        device::feature_major_linear(ctx_, x_t, w.forward, w.bias_columns, func, out, columns);
        return out;
    }
    // A pre-norm sum starting from the residual `x` (a copy of it; residual_linear adds the dense).
    TileSet residual(const TileSet& x, const std::string& what = "attention sum") {
        TileSet sum = tiles(tokens_, hidden_, ctx_.dtypes.activation, what);
        copy(x, sum);
        return sum;
    }
    // Activation `which` of `a` into the spill now, its shape alone left in `a` (its SBUF free to give back).
    void store_now(uint32_t l, TileSet LayerActivationTiles::*which, LayerActivationTiles& a) {
        in_.spill->store_one(ctx_, l, which, a.*which, in_.first_row * in_.shape.seq);
        (a.*which).tiles.clear();
    }
    // The tokens the FFN takes at once: the pass's, or (with a spill) chunks of in_.chunk_tokens.
    uint32_t ffn_chunk_tokens() const {
        if (!in_.spill) return tokens_;
        return train::ffn_chunk_tokens(in_.chunk_tokens, tokens_, tile_rows(), "training forward");
    }

    LayerActivationTiles encoder_layer(uint32_t l, const TrainedLayer& w, const LayerDropout& dropout, TileSet x, TileSet x_t) {
        const isa::DType mm = ctx_.dtypes.matmul;
        LayerActivationTiles a;
        a.x = std::move(x);
        a.x_t = std::move(x_t);
        // Streamed (FFN in chunks): each of the attention block's kept activations is stored as soon
        // as it is made and its SBUF given back, q and k one at a time after the attention; the
        // attention sum and the context^T below them, the context^T given back after its dense.
        const uint32_t chunk = ffn_chunk_tokens();
        const bool streamed = chunk < tokens_;
        TileSet context_t;
        if (streamed) a.attention_sum = residual(a.x);
        const uint64_t context_t_mark = ctx_.core.sbuf_mark();
        if (streamed) context_t = tiles(hidden_, tokens_, mm, "context^T");
        const uint64_t attention_mark = ctx_.core.sbuf_mark();
        a.q_t = projection_t(a.x_t, w.query, isa::ActivationFunction::Identity, "q^T");
        a.k_t = projection_t(a.x_t, w.key, isa::ActivationFunction::Identity, "k^T");
        a.v_t = projection_t(a.x_t, w.value, isa::ActivationFunction::Identity, "v^T");
        if (!streamed) {
            a.q = transposed(a.q_t, mm, "q");
            a.k = transposed(a.k_t, mm, "k");
        }
        const uint64_t value_mark = ctx_.core.sbuf_mark();
        const TileSet v = transposed(a.v_t, mm, "v");
        if (!streamed) context_t = tiles(hidden_, tokens_, mm, "context^T");
        device::self_attention(ctx_, in_.shape, a.q_t, a.k_t, v, zero_value_bias_, context_t, attention_,
                               dropout.attention);
        if (streamed) {
            ctx_.core.sbuf_rewind(value_mark);
            for (const auto& [made, from] : {std::pair{&LayerActivationTiles::q, &LayerActivationTiles::q_t},
                                             std::pair{&LayerActivationTiles::k, &LayerActivationTiles::k_t}}) {
                a.*made = transposed(a.*from, mm, made == &LayerActivationTiles::q ? "q" : "k");
                store_now(l, made, a);
                ctx_.core.sbuf_rewind(value_mark);
            }
            for (TileSet LayerActivationTiles::*kept :
                 {&LayerActivationTiles::q_t, &LayerActivationTiles::k_t, &LayerActivationTiles::v_t})
                store_now(l, kept, a);
            ctx_.core.sbuf_rewind(attention_mark);
        }
        const uint64_t context_mark = ctx_.core.sbuf_mark();
        a.context = transposed(context_t, mm, "context");
        if (streamed) {
            store_now(l, &LayerActivationTiles::context, a);
            ctx_.core.sbuf_rewind(context_mark);
        } else {
            a.attention_sum = residual(a.x);
        }
        residual_linear(context_t, w.attention_output, a.attention_sum, dropout.hidden, dropout.attention_output_key,
                        dropout.first_token);
        if (streamed) ctx_.core.sbuf_rewind(context_t_mark);
        TileSet attended_t;
        normalized(a.attention_sum, w.attention_norm, "attended", a.attended, attended_t);
        a.output_sum = residual(a.attended, "output sum");
        if (!streamed) {
            const GeluProjection inter = gelu_projection(attended_t, w.intermediate, "intermediate");
            a.intermediate_in = inter.in;
            a.intermediate = inter.out;
            residual_linear(inter.out_t, w.output, a.output_sum, dropout.hidden, dropout.ffn_output_key,
                            dropout.first_token);
            return a;
        }
        // In chunks of tokens, each chunk's pre-GELU and GELU values stored as made (their SBUF the
        // next chunk's); the layer keeps their shapes alone (ActivationSpill::store skips them).
        const uint32_t first_token = in_.first_row * in_.shape.seq;
        for (uint32_t c = 0; c < tokens_; c += chunk) {
            const uint64_t mark = ctx_.core.sbuf_mark();
            const GeluProjection inter = gelu_projection(attended_t, w.intermediate, "intermediate", device::Range{c, chunk});
            TileSet sum = row_tiles(a.output_sum, c, chunk);
            residual_linear(inter.out_t, w.output, sum, dropout.hidden, dropout.ffn_output_key, dropout.first_token + c);
            in_.spill->store_rows(ctx_, l, &LayerActivationTiles::intermediate_in, inter.in, first_token + c);
            in_.spill->store_rows(ctx_, l, &LayerActivationTiles::intermediate, inter.out, first_token + c);
            ctx_.core.sbuf_rewind(mark);
        }
        for (TileSet* kept : {&a.intermediate_in, &a.intermediate}) {
            kept->rows = tokens_;
            kept->columns = w.intermediate.forward.columns;
            kept->dtype = ctx_.dtypes.matmul;
            kept->tile_rows = tile_rows();
        }
        return a;
    }

    // GELU(x W^T + b): the pre-GELU values and the GELU's token-major (what the backward reads), and
    // the GELU's feature-major (the next matmul's input). The pre-GELU values are made feature-major,
    // transposed, then GELU'd in place: the feature-major pre-GELU and GELU tensors share SBUF (the
    // FFN's peak, at passes of two sequences of BERT-large).
    struct GeluProjection {
        TileSet in, out, out_t;
    };
    GeluProjection gelu_projection(const TileSet& x_t, const TrainedLinear& w, const std::string& what,
                                   std::optional<device::Range> columns = std::nullopt) {
        const isa::DType mm = ctx_.dtypes.matmul;
        GeluProjection g;
        g.out_t = projection_t(x_t, w, isa::ActivationFunction::Identity, what + "^T", columns);
        const uint32_t tokens = g.out_t.columns;
        g.in = transposed(g.out_t, mm, what + " in");
        for (uint32_t i = 0; i < g.out_t.tiles.size(); ++i)
            ctx_.core.activation(g.out_t.view(i, 0, tokens), g.out_t.view(i, 0, tokens), isa::ActivationFunction::Gelu);
        g.out = transposed(g.out_t, mm, what);
        return g;
    }

    // The masked-LM head's transform over the predicted positions: the encoder output's rows gathered
    // feature-major by a matmul with the one-hot [tokens, predictions] (masked^T = output^T onehot),
    // then dense + GELU and LayerNorm as BertPredictionHeadTransform has them.
public:
    MaskedLmTiles masked_lm_transform(const TileSet& output, const TileSet& onehot) {
        const isa::DType mm = ctx_.dtypes.matmul;
        const TrainedMaskedLmHead& head = *model_.masked_lm;
        MaskedLmTiles m;
        norm_scratch_ = device::allocate_layer_norm_scratch(ctx_.core, hidden_, ctx_.dtypes);
        TileSet masked_t = tiles(hidden_, onehot.columns, mm, "masked^T");
        contract_tokens(ctx_, output, onehot, masked_t);
        m.masked = transposed(masked_t, mm, "masked");
        const GeluProjection g = gelu_projection(masked_t, head.transform, "mlm transform");
        m.transform_in = g.in;
        m.transform_out = g.out;
        normalized(m.transform_out, head.transform_norm, "mlm transformed", m.transformed, m.transformed_t);
        return m;
    }

private:

    // pooled = tanh(cls W_p^T + b_p) feature-major over the first token of each sequence, as the
    // inference program computes it; the logits token-major (cross_entropy's layout).
    void head(ForwardTiles& f) {
        const isa::DType mm = ctx_.dtypes.matmul;
        const uint32_t batch = in_.shape.batch, seq = in_.shape.seq;
        TileSet pooled_t = tiles(hidden_, batch, mm, "pooled^T");
        device::feature_major_linear(ctx_, f.output_t, model_.pooler.forward, model_.pooler.bias_columns,
                                     isa::ActivationFunction::Tanh, pooled_t, device::Range{0, batch}, seq);
        TileSet cls_t = tiles(hidden_, batch, mm, "cls^T");
        for (uint32_t i = 0; i < cls_t.tiles.size(); ++i)
            for (uint32_t b = 0; b < batch; ++b)
                ctx_.core.tensor_copy(isa::Engine::Dve, cls_t.view(i, b, 1), f.output_t.view(i, b * seq, 1));
        f.cls = transposed(cls_t, mm, "cls");
        f.pooled = transposed(pooled_t, mm, "pooled");
        f.logits = tiles(batch, model_.classifier.forward.columns, isa::DType::Fp32, "logits");
        device::token_major_linear(ctx_, pooled_t, model_.classifier.forward, f.logits, device::TokenEpilogue::Store);
        add_bias_row(f.logits, *model_.classifier.bias_row);
    }

    KernelContext& ctx_;
    builder::DmaChannel& channel_;
    const TrainedBert& model_;
    const ForwardInputs& in_;
    device::AttentionScratch attention_;  // the caller's (its mask), with a ring of the forward's own if it has none
    uint32_t tokens_, hidden_;
    bool own_ring_;
    device::LayerNormScratch norm_scratch_;
    ColumnParams zero_value_bias_;
    struct Carry {
        TileSet x, x_t;
    };
    Carry carries_[2];
    uint64_t layer_mark_ = 0;
};

}  // namespace

EncoderLayerSaved LayerActivationTiles::saved() const {
    return {&x, &q, &k, &q_t, &k_t, &v_t, &context, &attention_sum, &attended, &intermediate_in, &intermediate,
            &output_sum};
}

ForwardTiles training_forward(KernelContext& ctx, builder::DmaChannel& channel, const TrainedBert& model,
                              const ForwardInputs& in, device::AttentionScratch& attention) {
    return Forward(ctx, channel, model, in, attention).run();
}

MaskedLmTiles masked_lm_transform(KernelContext& ctx, builder::DmaChannel& channel, const TrainedBert& model,
                                  const ForwardInputs& in, device::AttentionScratch& attention, const TileSet& output,
                                  const TileSet& prediction_onehot) {
    if (!model.masked_lm) throw std::logic_error("masked_lm_transform: the model has no masked-LM head");
    return Forward(ctx, channel, model, in, attention).masked_lm_transform(output, prediction_onehot);
}

}  // namespace nsim::kernels::train
