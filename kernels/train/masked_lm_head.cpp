#include "train/masked_lm_head.h"

#include <algorithm>
#include <stdexcept>

#include "device/linear_kernels.h"
#include "train/activation_backward.h"
#include "train/cross_entropy.h"
#include "train/embedding_backward.h"
#include "train/layer_norm_backward.h"
#include "train/linear_backward.h"

namespace nsim::kernels::train {
namespace {

class Head {
public:
    Head(KernelContext& ctx, builder::DmaChannel& channel, const MaskedLmHeadInputs& in)
        : ctx_(ctx), channel_(channel), in_(in), f_(*in.forward), predictions_(f_.transformed.rows),
          hidden_(f_.transformed.columns), vocab_(in.word_table.rows),
          chunk_(std::min(in.vocabulary_chunk, vocab_)),
          logits_(device::allocate_tiles(ctx.core, predictions_, chunk_, isa::DType::Fp32, "mlm logits")),
          bias_(ctx.core.sbuf(uint64_t(chunk_) * 4, "mlm decoder bias chunk")),
          loss_(ctx, *in.labels, in.class_row, chunk_, in.weights) {}

    void run(const MaskedLmParameters& p, GradientSink& sink, TileSet& loss, TileSet& d_hidden) {
        for (uint32_t c = 0; c < vocab_; c += chunk_) loss_.observe(logits(c), c);
        loss_.loss(loss);
        const isa::DType mm = ctx_.dtypes.matmul;
        TileSet dz = device::allocate_tiles(ctx_.core, predictions_, chunk_, mm, "mlm dlogits");
        TileSet d_transformed = device::allocate_tiles(ctx_.core, predictions_, hidden_, mm, "d mlm transformed");
        TileSet dz_t = device::allocate_tiles(ctx_.core, chunk_, predictions_, mm, "mlm dlogits^T");
        for (uint32_t c = 0; c < vocab_; c += chunk_) {
            const TileSet& z = logits(c);
            TileSet dz_c = dz;
            dz_c.columns = z.columns;
            loss_.gradient(z, c, dz_c);
            sink.linear(ctx_, f_.transformed, dz_c, p.word, p.decoder_bias, LinearSlice{c, 0});
            TileSet dz_t_c = dz_t;
            dz_t_c.rows = z.columns;
            dz_t_c.tiles.resize((z.columns + dz_t.tile_rows - 1) / dz_t.tile_rows);
            transpose_tiles(ctx_, dz_c, dz_t_c);
            device::token_major_linear(ctx_, dz_t_c, in_.word_table.window({c, z.columns}, {0, hidden_}), d_transformed,
                                       c == 0 ? device::TokenEpilogue::Store : device::TokenEpilogue::AddInto);
        }
        // The transform: LayerNorm, GELU, dense; then the predicted rows back to their tokens.
        const TrainedMaskedLmHead& head = *in_.head;
        TileSet d_act = device::allocate_tiles(ctx_.core, predictions_, hidden_, mm, "d mlm gelu");
        TileSet dgamma = sink.begin(p.norm_gamma, 0, 0, 1, hidden_);
        TileSet dbeta = sink.begin(p.norm_beta, 0, 0, 1, hidden_);
        layer_norm_backward(ctx_, f_.transform_out, d_transformed, head.transform_norm.gamma_row_fp32,
                            in_.layer_norm_eps, {&d_act, &dgamma, &dbeta});
        sink.end(p.norm_gamma, dgamma, 0, 0);
        sink.end(p.norm_beta, dbeta, 0, 0);
        TileSet d_in = device::allocate_tiles(ctx_.core, predictions_, hidden_, mm, "d mlm transform");
        gelu_backward(ctx_, f_.transform_in, d_act, d_in);
        linear_parameter_gradients(ctx_, f_.masked, d_in, sink, p.transform_weight, p.transform_bias);
        TileSet d_masked = device::allocate_tiles(ctx_.core, predictions_, hidden_, mm, "d masked");
        linear_backward(ctx_, f_.masked, d_in, head.transform.backward, {&d_masked, nullptr, nullptr});
        embedding_backward(ctx_, *in_.positions, d_masked, in_.index_row, d_hidden);
    }

private:
    // The logits of vocabulary chunk [first, + chunk): transformed E_chunk^T plus the bias chunk.
    const TileSet& logits(uint32_t first) {
        const uint32_t width = std::min(chunk_, vocab_ - first);
        logits_.columns = width;
        const TrainedMaskedLmHead& head = *in_.head;
        device::token_major_linear(ctx_, f_.transformed_t, head.decoder.window({0, hidden_}, {first, width}), logits_,
                                   device::TokenEpilogue::Store);
        const uint32_t rows = std::min(predictions_, logits_.tile_rows);
        broadcast_elements(ctx_, channel_, head.decoder_bias, ctx_.dtypes.activation, first, width, bias_,
                           isa::DType::Fp32, rows);
        for (uint32_t k = 0; k < logits_.tiles.size(); ++k)
            ctx_.core.tensor_tensor(isa::Engine::Dve, logits_.view(k, 0, width), logits_.view(k, 0, width),
                                    builder::tile(bias_, isa::DType::Fp32, 0, logits_.rows_of(k), 0, width),
                                    isa::AluOp::Add);
        return logits_;
    }

    KernelContext& ctx_;
    builder::DmaChannel& channel_;
    const MaskedLmHeadInputs& in_;
    const MaskedLmTiles& f_;
    uint32_t predictions_, hidden_, vocab_, chunk_;
    TileSet logits_;
    builder::Buffer bias_;
    ChunkedCrossEntropy loss_;
};

}  // namespace

void masked_lm_head(KernelContext& ctx, builder::DmaChannel& channel, const MaskedLmHeadInputs& in,
                    const MaskedLmParameters& parameters, GradientSink& sink, TileSet& loss, TileSet& d_hidden) {
    if (!in.forward || !in.head || !in.labels || !in.weights || !in.positions)
        throw std::logic_error("masked_lm_head: missing inputs");
    if (in.vocabulary_chunk == 0) throw std::logic_error("masked_lm_head: vocabulary chunks need columns");
    Head(ctx, channel, in).run(parameters, sink, loss, d_hidden);
}

}  // namespace nsim::kernels::train
