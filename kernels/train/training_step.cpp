#include "train/training_step.h"

#include <algorithm>
#include <stdexcept>

#include "train/classifier_head_backward.h"
#include "train/cross_entropy.h"
#include "train/embedding_backward.h"
#include "train/layer_norm_backward.h"
#include "train/training_forward.h"

namespace nsim::kernels::train {
namespace {

using builder::View;

class Step {
public:
    Step(KernelContext& ctx, builder::ProgramBuilder& program, builder::DmaChannel& channel, const TokenBatch& tokens)
        : ctx_(ctx), program_(program), channel_(channel), tokens_(tokens),
          count_(uint32_t(tokens.batch * tokens.seq_len)) {}

    uint32_t tensor(const std::string& name, const std::vector<float>& values, uint32_t rows, isa::DType dtype) {
        return program_.add_tensor(name, isa::TensorRole::Weight, dtype, {rows, uint32_t(values.size() / rows)},
                                   builder::encode_values(values, dtype));
    }
    TileSet tiles(uint32_t rows, uint32_t columns, isa::DType dtype, const std::string& what) {
        return device::allocate_tiles(ctx_.core, rows, columns, dtype, what);
    }
    // A [rows, columns] device-memory tensor into a new TileSet.
    TileSet load(uint32_t tensor, uint32_t rows, uint32_t columns, isa::DType dtype, const std::string& what) {
        TileSet set = tiles(rows, columns, dtype, what);
        load_into(tensor, set);
        return set;
    }
    void load_into(uint32_t tensor, TileSet& set) {
        for (uint32_t i = 0; i < set.tiles.size(); ++i) {
            const View src = builder::dram(
                builder::dram_rows(tensor, set.dtype, set.columns, i * set.tile_rows, set.rows_of(i), 0, set.columns));
            ctx_.core.dma(channel_, builder::CoreBuilder::split_rows(set.view(i, 0, set.columns), src, 1));
        }
    }
    // A new fp32 output tensor [rows, columns] holding `set`.
    void store(const TileSet& set, const std::string& name) {
        const uint32_t tensor =
            program_.add_tensor(name, isa::TensorRole::Output, isa::DType::Fp32, {set.rows, set.columns});
        for (uint32_t i = 0; i < set.tiles.size(); ++i) {
            const View dst = builder::dram(builder::dram_rows(tensor, isa::DType::Fp32, set.columns, i * set.tile_rows,
                                                              set.rows_of(i), 0, set.columns));
            ctx_.core.dma(channel_, builder::CoreBuilder::split_rows(dst, set.view(i, 0, set.columns), 1));
        }
    }
    // A host column of per-row numbers (ids, labels, positions) as an fp32 [n, 1] TileSet.
    TileSet column(const std::string& name, const std::vector<float>& values) {
        return load(tensor(name, values, uint32_t(values.size()), isa::DType::Fp32), uint32_t(values.size()), 1,
                    isa::DType::Fp32, name);
    }
    std::vector<float> floats(const std::vector<int32_t>& v) { return std::vector<float>(v.begin(), v.end()); }

    KernelContext& ctx_;
    builder::ProgramBuilder& program_;
    builder::DmaChannel& channel_;
    const TokenBatch& tokens_;
    uint32_t count_;
};

// The gradient tiles in bert_tensor_slots order: embeddings, each layer, pooler, classifier.
void append(std::vector<TileSet>& out, LinearGradientTiles& g) {
    out.push_back(std::move(g.weight));
    out.push_back(std::move(g.bias));
}
void append(std::vector<TileSet>& out, NormGradientTiles& g) {
    out.push_back(std::move(g.gamma));
    out.push_back(std::move(g.beta));
}

}  // namespace

std::string gradient_output(const std::string& parameter) { return parameter + "/grad"; }
std::string parameter_output(const std::string& parameter) { return parameter + "/updated"; }
std::string m_output(const std::string& parameter) { return parameter + "/adam_m updated"; }
std::string v_output(const std::string& parameter) { return parameter + "/adam_v updated"; }

TrainingStepOutputs training_step(KernelContext& ctx, builder::ProgramBuilder& program, builder::DmaChannel& channel,
                                const BertWeights& weights, const BertWeights& m, const BertWeights& v,
                                const TokenBatch& tokens, const std::vector<int32_t>& labels, const TrainingHyper& hyper) {
    const BertConfig& c = weights.config;
    if (c.hidden_act != HiddenActivation::GeluErf)
        throw std::invalid_argument("training step: only the erf GELU has a backward here");
    if (labels.size() != tokens.batch) throw std::invalid_argument("training step: one label per sequence");
    auto within = [](const std::vector<int32_t>& v, int64_t end) {
        return std::all_of(v.begin(), v.end(), [&](int32_t x) { return x >= 0 && x < end; });
    };
    if (!within(labels, c.num_labels) || !within(tokens.input_ids, c.vocab_size) ||
        !within(tokens.token_type_ids, c.type_vocab_size) || int64_t(tokens.seq_len) > c.max_position_embeddings)
        throw std::invalid_argument("training step: a label, token id, token type or position outside its table");
    Step s(ctx, program, channel, tokens);
    const uint32_t batch = uint32_t(tokens.batch), seq = uint32_t(tokens.seq_len), count = s.count_;
    const uint32_t hidden = uint32_t(c.hidden_size), num_labels = uint32_t(c.num_labels);
    const isa::DType mm = ctx.dtypes.matmul, fp32 = isa::DType::Fp32;
    const TrainedBert model = load_trained_bert(ctx, program, channel, weights, m, v);

    // Inputs: the ids for the gathers (int32) and, as fp32 columns, for the one-hot scatter-adds.
    ForwardInputs in;
    in.input_ids = s.tensor("input_ids", s.floats(tokens.input_ids), batch, isa::DType::Int32);
    in.token_types = s.tensor("token_type_ids", s.floats(tokens.token_type_ids), batch, isa::DType::Int32);
    in.shape = {batch, seq, uint32_t(c.num_attention_heads), uint32_t(c.head_size())};
    in.layer_norm_eps = float(c.layer_norm_eps);
    const uint32_t mask = s.tensor("attention_mask", s.floats(tokens.attention_mask), batch, isa::DType::Int32);
    std::vector<float> positions(count), cls_positions(batch);
    for (uint32_t t = 0; t < count; ++t) positions[t] = float(t % seq);
    for (uint32_t b = 0; b < batch; ++b) cls_positions[b] = float(b * seq);
    const TileSet ids = s.column("input ids/fp32", s.floats(tokens.input_ids));
    const TileSet types = s.column("token type ids/fp32", s.floats(tokens.token_type_ids));
    const TileSet position_ids = s.column("position ids/fp32", positions);
    const TileSet cls_ids = s.column("cls positions/fp32", cls_positions);
    const TileSet label_column = s.column("labels/fp32", s.floats(labels));
    const builder::Buffer index_row = load_broadcast_row(
        ctx, channel, add_index_row(program, "row index", ctx.partitions()), ctx.partitions(), "row index");
    const builder::Buffer class_row =
        load_broadcast_row(ctx, channel, add_index_row(program, "class index", num_labels), num_labels, "class index");
    const std::vector<float> step_scalars =
        adamw_step_scalars(hyper.lr, hyper.weight_decay, hyper.constants.beta1, hyper.constants.beta2, hyper.step);
    const builder::Buffer scalar_row = load_broadcast_row(ctx, channel, s.tensor("adamw scalars", step_scalars, 1, fp32),
                                                          kAdamWScalars, "adamw scalars");

    device::AttentionScratch attention = device::allocate_attention_scratch(ctx.core, in.shape, ctx.dtypes);
    const builder::Buffer staging = ctx.core.sbuf(uint64_t(count) * 4, "mask staging");
    device::build_attention_mask(ctx, in.shape, mask, 0, channel, staging, attention);

    // Forward and loss.
    const ForwardTiles f = training_forward(ctx, channel, model, in, attention);
    TileSet loss = s.tiles(1, 1, fp32, "loss");
    TileSet dlogits = s.tiles(batch, num_labels, mm, "dlogits");
    cross_entropy(ctx, f.logits, label_column, class_row, dlogits, loss);

    // Backward: head, layers, embeddings.
    TileSet dy = s.tiles(count, hidden, mm, "d encoder output");
    LinearGradientTiles pooler{s.tiles(hidden, hidden, fp32, "dpooler.weight"), s.tiles(1, hidden, fp32, "dpooler.bias")};
    LinearGradientTiles classifier{s.tiles(num_labels, hidden, fp32, "dclassifier.weight"),
                                   s.tiles(1, num_labels, fp32, "dclassifier.bias")};
    classifier_head_backward(ctx, {&f.cls, &f.pooled, &dlogits, &cls_ids, model.pooler.backward,
                                   model.classifier.backward, index_row},
                             {&dy, &pooler.weight, &pooler.bias, &classifier.weight, &classifier.bias});
    std::vector<EncoderLayerGradientTiles> layer_grads(model.layers.size());
    for (size_t l = model.layers.size(); l-- > 0;) {
        const TrainedLayer& w = model.layers[l];
        const EncoderLayerParameters params{w.query.backward, w.key.backward, w.value.backward,
                                            w.attention_output.backward, w.intermediate.backward, w.output.backward,
                                            w.attention_norm.gamma_row_fp32, w.output_norm.gamma_row_fp32,
                                            in.layer_norm_eps, attention.mask};
        const TileSet& d_output = l + 1 == model.layers.size() ? dy : layer_grads[l + 1].input;
        layer_grads[l] = encoder_layer_backward(ctx, in.shape, f.layers[l].saved(), params, d_output);
    }
    const TileSet& d_embedded = layer_grads.empty() ? dy : layer_grads.front().input;
    TileSet d_sum = s.tiles(count, hidden, mm, "d embedding sum");
    NormGradientTiles embedding_norm{s.tiles(1, hidden, fp32, "dembeddings.LayerNorm.weight"),
                                     s.tiles(1, hidden, fp32, "dembeddings.LayerNorm.bias")};
    layer_norm_backward(ctx, f.embedding_sum, d_embedded, model.embedding_norm.gamma_row_fp32, in.layer_norm_eps,
                        {&d_sum, &embedding_norm.gamma, &embedding_norm.beta});
    std::vector<TileSet> grads;
    const std::pair<const TileSet*, const device::DramMatrix*> tables[] = {
        {&ids, &model.tables.word}, {&position_ids, &model.tables.position}, {&types, &model.tables.token_type}};
    for (const auto& [table_ids, table] : tables) {
        grads.push_back(s.tiles(table->rows, hidden, fp32, "dtable"));
        embedding_backward(ctx, *table_ids, d_sum, index_row, grads.back());
    }
    append(grads, embedding_norm);
    for (EncoderLayerGradientTiles& g : layer_grads) {
        for (LinearGradientTiles* lin : {&g.query, &g.key, &g.value, &g.attention_output}) append(grads, *lin);
        append(grads, g.attention_norm);
        append(grads, g.intermediate);
        append(grads, g.output);
        append(grads, g.output_norm);
    }
    append(grads, pooler);
    append(grads, classifier);
    if (grads.size() != model.parameters.size()) throw std::logic_error("training step: gradients and parameters differ");

    // AdamW on every parameter, one after another through the same on-chip room (sized for the
    // largest), each result stored as soon as it is made.
    uint64_t room = 0;
    uint32_t widest = 0;
    for (const ParameterTensors& p : model.parameters) {
        room = std::max(room, device::tile_set_bytes(ctx.core, p.rows, p.columns, ctx.dtypes.activation) +
                                  2 * device::tile_set_bytes(ctx.core, p.rows, p.columns, fp32));
        widest = std::max(widest, p.columns);
    }
    const builder::Buffer region = ctx.core.sbuf_region(room, "adamw parameter and states");
    const builder::Buffer scratch = ctx.core.sbuf(uint64_t(widest) * 2 * 4, "adamw scratch");
    TrainingStepOutputs result;
    s.store(loss, result.loss);
    for (size_t i = 0; i < grads.size(); ++i) {
        const ParameterTensors& p = model.parameters[i];
        const uint64_t p_bytes = device::tile_set_bytes(ctx.core, p.rows, p.columns, ctx.dtypes.activation);
        const uint64_t state_bytes = device::tile_set_bytes(ctx.core, p.rows, p.columns, fp32);
        TileSet param = device::alias_tiles(ctx.core, region, 0, p.rows, p.columns, ctx.dtypes.activation);
        TileSet m_tiles = device::alias_tiles(ctx.core, region, p_bytes, p.rows, p.columns, fp32);
        TileSet v_tiles = device::alias_tiles(ctx.core, region, p_bytes + state_bytes, p.rows, p.columns, fp32);
        s.load_into(p.parameter, param);
        s.load_into(p.m, m_tiles);
        s.load_into(p.v, v_tiles);
        adamw(ctx, param, grads[i], m_tiles, v_tiles, scalar_row, hyper.constants, scratch);
        const std::string name = p.name;
        s.store(grads[i], gradient_output(name));
        s.store(param, parameter_output(name));
        s.store(m_tiles, m_output(name));
        s.store(v_tiles, v_output(name));
        result.parameters.push_back(name);
    }
    return result;
}

}  // namespace nsim::kernels::train
