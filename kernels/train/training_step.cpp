#include "train/training_step.h"

#include <algorithm>
#include <stdexcept>

#include "train/classifier_head_backward.h"
#include "train/cross_entropy.h"
#include "train/dram_tiles.h"
#include "train/embedding_backward.h"
#include "train/layer_norm_backward.h"
#include "train/optimizer_step.h"
#include "train/training_forward.h"

namespace nsim::kernels::train {
namespace {

using builder::View;
using device::kFp32;

std::string per_micro_step(const char* name, uint32_t micro_step) { return name + ("/" + std::to_string(micro_step)); }

// The gradient tiles in bert_tensor_slots order: embeddings, each layer, pooler, classifier.
void append(std::vector<TileSet>& out, LinearGradientTiles& g) {
    out.push_back(std::move(g.weight));
    out.push_back(std::move(g.bias));
}
void append(std::vector<TileSet>& out, NormGradientTiles& g) {
    out.push_back(std::move(g.gamma));
    out.push_back(std::move(g.beta));
}

// Ends a phase on every queue of the core: a mark whose label is its number, and the phase's name.
struct PhaseMarks {
    builder::CoreBuilder& core;
    std::vector<std::string> names;
    void end(const char* phase) {
        core.mark(uint32_t(names.size()));
        names.push_back(phase);
    }
};

// What every micro-step shares (loaded once per execution, before the micro-steps' memory).
struct Shared {
    TrainedBert model;
    device::AttentionShape shape;
    float layer_norm_eps = 1e-12f;
    TileSet position_ids, cls_ids;  // fp32 columns
    builder::Buffer index_row, class_row, staging;
    device::AttentionScratch attention;
    uint32_t loss_output = 0;
    std::vector<uint32_t> gradients;  // fp32 sums in device memory, one per parameter
    uint64_t accumulation_room = 0;   // bytes per partition of the largest gradient (or table chunk)
    uint32_t table_chunk_rows = 0;
    uint64_t table_chunk_bytes = 0;   // bytes per partition of one chunk of a table's gradient
    PhaseMarks* phases = nullptr;
};

class MicroStep {
public:
    MicroStep(KernelContext& ctx, builder::ProgramBuilder& program, builder::DmaChannel& channel, Shared& shared)
        : ctx_(ctx), program_(program), channel_(channel), s_(shared) {}

    void run(uint32_t k) {
        table_room_ = ctx_.core.sbuf_region(s_.table_chunk_bytes, "table gradient chunk");
        if (k > 0) sum_room_ = ctx_.core.sbuf_region(s_.accumulation_room, "gradient sum room");
        const uint32_t batch = s_.shape.batch, count = batch * s_.shape.seq;
        const uint32_t hidden = s_.shape.heads * s_.shape.head_size, num_labels = uint32_t(s_.model.classifier.backward.rows);
        const isa::DType mm = ctx_.dtypes.matmul;
        ForwardInputs in;
        in.input_ids = input(input_ids_input(k), {batch, s_.shape.seq}, isa::DType::Int32);
        in.token_types = input(token_type_ids_input(k), {batch, s_.shape.seq}, isa::DType::Int32);
        in.shape = s_.shape;
        in.layer_norm_eps = s_.layer_norm_eps;
        const uint32_t mask = input(attention_mask_input(k), {batch, s_.shape.seq}, isa::DType::Int32);
        device::build_attention_mask(ctx_, s_.shape, mask, 0, channel_, s_.staging, s_.attention);
        // The ids again as fp32 columns (the DMA converts), for the one-hot scatter-adds; the labels.
        const TileSet ids = column(in.input_ids, isa::DType::Int32, count, "input ids/fp32");
        const TileSet types = column(in.token_types, isa::DType::Int32, count, "token type ids/fp32");
        const TileSet labels = column(input(labels_input(k), {batch, 1}, kFp32), kFp32, batch, "labels/fp32");

        const ForwardTiles f = training_forward(ctx_, channel_, s_.model, in, s_.attention);
        TileSet loss = tiles(1, 1, kFp32, "loss");
        TileSet dlogits = tiles(batch, num_labels, mm, "dlogits");
        cross_entropy(ctx_, f.logits, labels, s_.class_row, dlogits, loss);
        ctx_.core.dma(channel_, {builder::DmaPiece{builder::dram(builder::dram_rows(s_.loss_output, kFp32, 1, k, 1, 0, 1)),
                                                   loss.view(0, 0, 1)}});
        s_.phases->end(kForwardPhase);

        k_ = k;
        backward(f, dlogits, ids, types, count, hidden);
    }

private:
    uint32_t input(const std::string& name, std::vector<uint64_t> shape, isa::DType dtype) {
        return program_.add_tensor(name, isa::TensorRole::Input, dtype, std::move(shape));
    }
    TileSet tiles(uint32_t rows, uint32_t columns, isa::DType dtype, const std::string& what) {
        return device::allocate_tiles(ctx_.core, rows, columns, dtype, what);
    }
    // `count` elements of a tensor as an fp32 [count, 1] TileSet.
    TileSet column(uint32_t tensor, isa::DType dtype, uint32_t count, const std::string& what) {
        TileSet set = tiles(count, 1, kFp32, what);
        load_tiles(ctx_, channel_, {tensor, dtype, 1, 0, 0}, set);
        return set;
    }

    // The gradients, each added into its sum as soon as it is made (the tables' in chunks of rows).
    void backward(const ForwardTiles& f, const TileSet& dlogits, const TileSet& ids, const TileSet& types, uint32_t count,
                  uint32_t hidden) {
        const isa::DType mm = ctx_.dtypes.matmul;
        const TrainedBert& model = s_.model;
        const uint32_t num_labels = model.classifier.backward.rows;
        TileSet dy = tiles(count, hidden, mm, "d encoder output");
        LinearGradientTiles pooler{tiles(hidden, hidden, kFp32, "dpooler.weight"), tiles(1, hidden, kFp32, "dpooler.bias")};
        LinearGradientTiles classifier{tiles(num_labels, hidden, kFp32, "dclassifier.weight"),
                                       tiles(1, num_labels, kFp32, "dclassifier.bias")};
        classifier_head_backward(ctx_, {&f.cls, &f.pooled, &dlogits, &s_.cls_ids, model.pooler.backward,
                                        model.classifier.backward, s_.index_row},
                                 {&dy, &pooler.weight, &pooler.bias, &classifier.weight, &classifier.bias});
        std::vector<EncoderLayerGradientTiles> layer_grads(model.layers.size());
        for (size_t l = model.layers.size(); l-- > 0;) {
            const TrainedLayer& w = model.layers[l];
            const EncoderLayerParameters params{w.query.backward, w.key.backward, w.value.backward,
                                                w.attention_output.backward, w.intermediate.backward, w.output.backward,
                                                w.attention_norm.gamma_row_fp32, w.output_norm.gamma_row_fp32,
                                                s_.layer_norm_eps, s_.attention.mask};
            const TileSet& d_output = l + 1 == model.layers.size() ? dy : layer_grads[l + 1].input;
            layer_grads[l] = encoder_layer_backward(ctx_, s_.shape, f.layers[l].saved(), params, d_output);
        }
        const TileSet& d_embedded = layer_grads.empty() ? dy : layer_grads.front().input;
        TileSet d_sum = tiles(count, hidden, mm, "d embedding sum");
        NormGradientTiles embedding_norm{tiles(1, hidden, kFp32, "dembeddings.LayerNorm.weight"),
                                         tiles(1, hidden, kFp32, "dembeddings.LayerNorm.bias")};
        layer_norm_backward(ctx_, f.embedding_sum, d_embedded, model.embedding_norm.gamma_row_fp32, s_.layer_norm_eps,
                            {&d_sum, &embedding_norm.gamma, &embedding_norm.beta});
        const std::pair<const TileSet*, const device::DramMatrix*> tables[] = {
            {&ids, &model.tables.word}, {&s_.position_ids, &model.tables.position}, {&types, &model.tables.token_type}};
        for (uint32_t i = 0; i < 3; ++i) {
            const device::DramMatrix& table = *tables[i].second;
            for (uint32_t r = 0; r < table.rows; r += s_.table_chunk_rows) {
                TileSet chunk = device::alias_tiles(ctx_.core, table_room_, 0, std::min(s_.table_chunk_rows, table.rows - r),
                                                    hidden, kFp32);
                embedding_backward(ctx_, *tables[i].first, d_sum, s_.index_row, chunk, r);
                s_.phases->end(kBackwardPhase);
                accumulate(chunk, i, r);
                s_.phases->end(kAccumulationPhase);
            }
        }
        std::vector<TileSet> grads;
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
        if (grads.size() + 3 != model.parameters.size()) throw std::logic_error("training step: gradients and parameters differ");
        for (size_t i = 0; i < grads.size(); ++i) accumulate(grads[i], uint32_t(i + 3), 0);
        s_.phases->end(kAccumulationPhase);
    }

    // Rows [first_row, + g rows) of parameter i's gradient: the first micro-step's become the sums,
    // later ones are added to them through one room.
    void accumulate(const TileSet& g, uint32_t i, uint32_t first_row) {
        const DramBlock sums{s_.gradients[i], kFp32, g.columns, first_row, 0};
        if (k_ == 0) {
            store_tiles(ctx_, channel_, g, sums);
            return;
        }
        TileSet sum = device::alias_tiles(ctx_.core, sum_room_, 0, g.rows, g.columns, kFp32);
        load_tiles(ctx_, channel_, sums, sum);
        for (uint32_t t = 0; t < sum.tiles.size(); ++t)
            ctx_.core.tensor_tensor(isa::Engine::Pool, sum.view(t, 0, g.columns), sum.view(t, 0, g.columns),
                                    g.view(t, 0, g.columns), isa::AluOp::Add);
        store_tiles(ctx_, channel_, sum, sums);
    }

    KernelContext& ctx_;
    builder::ProgramBuilder& program_;
    builder::DmaChannel& channel_;
    Shared& s_;
    uint32_t k_ = 0;
    builder::Buffer table_room_, sum_room_;
};

}  // namespace

std::string input_ids_input(uint32_t k) { return per_micro_step("input_ids", k); }
std::string token_type_ids_input(uint32_t k) { return per_micro_step("token_type_ids", k); }
std::string attention_mask_input(uint32_t k) { return per_micro_step("attention_mask", k); }
std::string labels_input(uint32_t k) { return per_micro_step("labels", k); }
std::string gradient_tensor(const std::string& parameter) { return parameter + "/grad"; }
std::string m_tensor(const std::string& parameter) { return parameter + "/adam_m"; }
std::string v_tensor(const std::string& parameter) { return parameter + "/adam_v"; }

TrainingProgram training_step(KernelContext& ctx, builder::ProgramBuilder& program, builder::DmaChannel& channel,
                              const BertWeights& weights, const BertWeights& m, const BertWeights& v,
                              const TrainingOptions& options) {
    const BertConfig& c = weights.config;
    if (c.hidden_act != HiddenActivation::GeluErf)
        throw std::invalid_argument("training step: only the erf GELU has a backward here");
    if (options.micro_batch == 0 || options.seq == 0 || options.grad_accum == 0)
        throw std::invalid_argument("training step: micro-batch, sequence length and accumulation steps must be positive");
    if (options.table_chunk_rows == 0) throw std::invalid_argument("training step: table chunks need rows");
    if (int64_t(options.seq) > c.max_position_embeddings)
        throw std::invalid_argument("training step: the sequence is longer than the position table");
    const uint32_t batch = options.micro_batch, seq = options.seq, count = batch * seq;
    const uint32_t num_labels = uint32_t(c.num_labels);
    PhaseMarks phases{ctx.core, {}};
    Shared s;
    s.phases = &phases;
    s.model = load_trained_bert(ctx, program, channel, weights, m, v, options.optimizer_states);
    s.shape = {batch, seq, uint32_t(c.num_attention_heads), uint32_t(c.head_size())};
    s.layer_norm_eps = float(c.layer_norm_eps);
    auto constant_column = [&](const std::string& name, const std::vector<float>& values) {
        const uint32_t n = uint32_t(values.size());
        const uint32_t tensor = program.add_tensor(name, isa::TensorRole::Weight, kFp32, {n, 1},
                                                   builder::encode_values(values, kFp32));
        TileSet set = device::allocate_tiles(ctx.core, n, 1, kFp32, name);
        load_tiles(ctx, channel, {tensor, kFp32, 1, 0, 0}, set);
        return set;
    };
    std::vector<float> positions(count), cls_positions(batch);
    for (uint32_t t = 0; t < count; ++t) positions[t] = float(t % seq);
    for (uint32_t b = 0; b < batch; ++b) cls_positions[b] = float(b * seq);
    s.position_ids = constant_column("position ids/fp32", positions);
    s.cls_ids = constant_column("cls positions/fp32", cls_positions);
    s.index_row = load_broadcast_row(ctx, channel, add_index_row(program, "row index", ctx.partitions()),
                                     ctx.partitions(), "row index");
    s.class_row = load_broadcast_row(ctx, channel, add_index_row(program, "class index", num_labels), num_labels,
                                     "class index");
    const uint32_t scalars = program.add_tensor(kAdamWScalarsInput, isa::TensorRole::Input, kFp32, {1, kAdamWScalars});
    const builder::Buffer scalar_row = load_broadcast_row(ctx, channel, scalars, kAdamWScalars, "adamw scalars");
    s.attention = device::allocate_attention_scratch(ctx.core, s.shape, ctx.dtypes);
    s.staging = ctx.core.sbuf(uint64_t(count) * 4, "mask staging");
    s.loss_output = program.add_tensor(kLossOutput, isa::TensorRole::Output, kFp32, {1, options.grad_accum});
    const uint32_t hidden = uint32_t(c.hidden_size);
    s.table_chunk_rows = options.table_chunk_rows;
    s.table_chunk_bytes = device::tile_set_bytes(ctx.core, s.table_chunk_rows, hidden, kFp32);
    for (size_t i = 0; i < s.model.parameters.size(); ++i) {
        const ParameterTensors& p = s.model.parameters[i];
        s.gradients.push_back(program.add_tensor(gradient_tensor(p.name), isa::TensorRole::Scratch, kFp32, {p.rows, p.columns}));
        const uint32_t rows = i < 3 ? std::min(p.rows, s.table_chunk_rows) : p.rows;  // the tables come first
        s.accumulation_room = std::max(s.accumulation_room, device::tile_set_bytes(ctx.core, rows, p.columns, kFp32));
    }

    const uint64_t mark = ctx.core.sbuf_mark();
    MicroStep micro(ctx, program, channel, s);
    for (uint32_t k = 0; k < options.grad_accum; ++k) {
        ctx.core.sbuf_rewind(mark);
        micro.run(k);
    }
    ctx.core.sbuf_rewind(mark);

    OptimizerStep step;
    step.parameters = s.model.parameters;
    step.gradients = s.gradients;
    step.states = options.optimizer_states;
    step.micro_steps = options.grad_accum;
    step.max_grad_norm = options.max_grad_norm;
    step.constants = options.constants;
    step.scalars = scalar_row;
    step.chunk_bytes = options.optimizer_chunk_bytes;
    if (options.max_grad_norm > 0)
        step.grad_norm_output = program.add_tensor(kGradNormOutput, isa::TensorRole::Output, kFp32, {1, 1});
    optimizer_step(ctx, channel, step);
    phases.end(kOptimizerPhase);

    TrainingProgram result;
    result.phase_marks = std::move(phases.names);
    for (const ParameterTensors& p : s.model.parameters) result.parameters.push_back(p.name);
    return result;
}

}  // namespace nsim::kernels::train
