#include "train/training_parameters.h"

#include <stdexcept>

namespace nsim::kernels::train {
namespace {

using builder::View;

// W^T; a tensor without values (a timing-only program's) gives one without values.
Tensor transposed(const Tensor& w) {
    if (w.values.empty()) return Tensor({w.shape[1], w.shape[0]}, {});
    Tensor t({w.shape[1], w.shape[0]});
    for (size_t o = 0; o < w.shape[0]; ++o)
        for (size_t i = 0; i < w.shape[1]; ++i) t.values[i * w.shape[0] + o] = w.values[o * w.shape[1] + i];
    return t;
}

// [rows, columns] of a parameter: vectors are one row.
std::pair<uint32_t, uint32_t> matrix_shape(const Tensor& t) {
    return t.shape.size() == 1 ? std::pair{1u, uint32_t(t.shape[0])} : std::pair{uint32_t(t.shape[0]), uint32_t(t.shape[1])};
}

// Parameter `tensor` ([1, n] in the activation dtype) broadcast over every partition of a new
// buffer of `dtype`, at every execution (so it is the parameter the last step wrote).
builder::Buffer broadcast(KernelContext& ctx, builder::DmaChannel& channel, const std::string& name, uint32_t tensor,
                          uint32_t n, isa::DType dtype) {
    const builder::Buffer b = ctx.core.sbuf(uint64_t(n) * isa::size_in_bytes(dtype), name);
    broadcast_elements(ctx, channel, tensor, ctx.dtypes.activation, 0, n, b, dtype, ctx.partitions());
    return b;
}

// Parameter `tensor` ([1, n]) as fp32 columns: feature i * tile_rows + p in column i of
// partition p (device::ColumnParams), read with a strided transfer at every execution, its
// partitions spread over the channel's queues (every element is a descriptor of its own: 1024 on one
// queue take ~31 us, on 16 ~2 us after the fixed cost).
device::ColumnParams columns(KernelContext& ctx, builder::DmaChannel& channel, const std::string& name, uint32_t tensor,
                             uint32_t n) {
    const isa::DType act = ctx.dtypes.activation;
    const uint32_t rows = device::partition_tile_rows(ctx.core.spec());
    const uint32_t full = n / rows, tail = n % rows, count = full + (tail > 0);
    const builder::Buffer b = ctx.core.sbuf(uint64_t(count) * 4, name);
    auto strided = [&](uint32_t partitions, uint32_t first_column, uint32_t columns) {
        isa::AccessPattern src = builder::dram_rows(tensor, act, 1, 0, partitions, 0, 1, 1);
        src.offset = uint64_t(first_column) * rows * isa::size_in_bytes(act);
        src.dims[0] = {int32_t(rows), columns};
        const View dst = builder::tile(b, isa::DType::Fp32, 0, partitions, first_column, columns);
        const View to = full > 0 && tail > 0 ? dst.part() : dst;
        ctx.core.dma(channel, builder::CoreBuilder::split_rows(to, builder::dram(src), uint32_t(channel.queues().size())));
    };
    if (full > 0) strided(rows, 0, full);
    if (tail > 0) strided(tail, full, 1);
    return {b, 0};
}

class Loader {
public:
    Loader(const device::DtypePlan& dtypes, builder::ProgramBuilder& program, isa::DType states)
        : dtypes_(dtypes), program_(program), act_(dtypes.activation), states_(states) {}

    // A tensor the program updates (a parameter, an optimizer state, W^T): State, which the runtime
    // loads once and the program may write, so each execution starts where the last ended. Without
    // values (a timing-only program), the tensor has no contents.
    uint32_t add(const std::string& name, const Tensor& t, isa::DType dtype) {
        const auto [rows, columns] = matrix_shape(t);
        return program_.add_tensor(name, isa::TensorRole::State, dtype, {rows, columns},
                                   t.values.empty() ? std::vector<uint8_t>{} : builder::encode_values(t.values, dtype));
    }

    // The parameter (activation dtype) and its states, remembered for AdamW.
    ParameterTensors& parameter(const std::string& name, const Tensor& p, const Tensor& m, const Tensor& v) {
        const auto [rows, columns] = matrix_shape(p);
        ParameterTensors t{name, rows, columns, add(name, p, act_), add(name + "/adam_m", m, states_),
                           add(name + "/adam_v", v, states_)};
        parameters.push_back(t);
        return parameters.back();
    }

    TrainedLinear linear(const std::string& name, const LinearWeights& w, const LinearWeights& m,
                         const LinearWeights& v, bool bias_row) {
        const isa::DType mm = dtypes_.matmul;
        const uint32_t out = uint32_t(w.weight.shape[0]), in = uint32_t(w.weight.shape[1]);
        TrainedLinear t;
        ParameterTensors& weight = parameter(name + ".weight", w.weight, m.weight, v.weight);
        weight.transposed = add(name + ".weight^T", transposed(w.weight), mm);
        t.backward = {weight.parameter, out, in, mm};
        t.forward = {weight.transposed, in, out, mm};
        t.name = name;
        t.bias = parameter(name + ".bias", w.bias, m.bias, v.bias).parameter;
        t.wants_bias_row = bias_row;
        return t;
    }

    TrainedNorm norm(const std::string& name, const LayerNormWeights& w, const LayerNormWeights& m,
                     const LayerNormWeights& v) {
        TrainedNorm t;
        t.name = name;
        t.size = uint32_t(w.gamma.shape.at(0));
        t.gamma = parameter(name + ".weight", w.gamma, m.gamma, v.gamma).parameter;
        t.beta = parameter(name + ".bias", w.beta, m.beta, v.beta).parameter;
        return t;
    }

    device::DramMatrix table(const std::string& name, const Tensor& w, const Tensor& m, const Tensor& v) {
        return {parameter(name, w, m, v).parameter, uint32_t(w.shape[0]), uint32_t(w.shape[1]), act_};
    }

    std::vector<ParameterTensors> parameters;

private:
    device::DtypePlan dtypes_;
    builder::ProgramBuilder& program_;
    isa::DType act_, states_;
};

}  // namespace

void load_on_chip_rows(KernelContext& ctx, builder::DmaChannel& channel, TrainedBert& t) {
    load_on_chip_rows(ctx, channel, t.embedding_norm);
    load_on_chip_rows(ctx, channel, t.pooler);
    load_on_chip_rows(ctx, channel, t.classifier);
    if (!t.masked_lm) return;
    load_on_chip_rows(ctx, channel, t.masked_lm->transform);
    load_on_chip_rows(ctx, channel, t.masked_lm->transform_norm);
}

TrainedBert add_trained_bert(builder::ProgramBuilder& program, const device::DtypePlan& dtypes, const BertWeights& w,
                             const BertWeights& m, const BertWeights& v, isa::DType states) {
    if (dtypes.matmul != dtypes.activation)
        throw std::invalid_argument("training step: the matmul and activation dtypes must be the same (fp32 or bf16)");
    if (!w.embeddings || !m.embeddings || !v.embeddings)
        throw std::invalid_argument("training step: the weights and optimizer states need the embeddings");
    if (states != isa::DType::Fp32 && states != dtypes.activation)
        throw std::invalid_argument("training step: optimizer states are fp32 or the parameters' dtype");
    Loader load(dtypes, program, states);
    TrainedBert t;
    const BertEmbeddingWeights &we = *w.embeddings, &me = *m.embeddings, &ve = *v.embeddings;
    t.tables.word = load.table("bert.embeddings.word_embeddings.weight", we.word, me.word, ve.word);
    t.tables.position = load.table("bert.embeddings.position_embeddings.weight", we.position, me.position, ve.position);
    t.tables.token_type =
        load.table("bert.embeddings.token_type_embeddings.weight", we.token_type, me.token_type, ve.token_type);
    t.embedding_norm = load.norm("bert.embeddings.LayerNorm", we.layer_norm, me.layer_norm, ve.layer_norm);
    for (size_t l = 0; l < w.layers.size(); ++l) {
        const BertLayerWeights &wl = w.layers[l], &ml = m.layers[l], &vl = v.layers[l];
        const std::string p = "bert.encoder.layer." + std::to_string(l);
        TrainedLayer layer;
        layer.query = load.linear(p + ".attention.self.query", wl.query, ml.query, vl.query, false);
        layer.key = load.linear(p + ".attention.self.key", wl.key, ml.key, vl.key, false);
        layer.value = load.linear(p + ".attention.self.value", wl.value, ml.value, vl.value, false);
        layer.attention_output = load.linear(p + ".attention.output.dense", wl.attention_output, ml.attention_output,
                                             vl.attention_output, true);
        layer.attention_norm = load.norm(p + ".attention.output.LayerNorm", wl.attention_layer_norm,
                                         ml.attention_layer_norm, vl.attention_layer_norm);
        layer.intermediate = load.linear(p + ".intermediate.dense", wl.intermediate, ml.intermediate, vl.intermediate, false);
        layer.output = load.linear(p + ".output.dense", wl.output, ml.output, vl.output, true);
        layer.output_norm = load.norm(p + ".output.LayerNorm", wl.output_layer_norm, ml.output_layer_norm,
                                      vl.output_layer_norm);
        t.layers.push_back(layer);
    }
    t.pooler = load.linear("bert.pooler.dense", w.pooler, m.pooler, v.pooler, false);
    const bool pretraining = w.pretraining.has_value();
    if (pretraining != m.pretraining.has_value() || pretraining != v.pretraining.has_value())
        throw std::invalid_argument("training step: the weights and optimizer states differ in their heads");
    t.classifier = load.linear(pretraining ? "cls.seq_relationship" : "classifier", w.classifier, m.classifier,
                               v.classifier, true);
    if (pretraining) {
        const BertPretrainingHeads &wp = *w.pretraining, &mp = *m.pretraining, &vp = *v.pretraining;
        TrainedMaskedLmHead head;
        head.transform = load.linear("cls.predictions.transform.dense", wp.transform, mp.transform, vp.transform, false);
        head.transform_norm = load.norm("cls.predictions.transform.LayerNorm", wp.transform_norm, mp.transform_norm,
                                        vp.transform_norm);
        head.decoder_bias = load.parameter("cls.predictions.bias", wp.decoder_bias, mp.decoder_bias, vp.decoder_bias).parameter;
        ParameterTensors& word = load.parameters.front();
        word.transposed = load.add(word.name + "^T", transposed(we.word), dtypes.matmul);
        head.decoder = {word.transposed, word.columns, word.rows, dtypes.matmul};
        t.masked_lm = head;
    }
    t.parameters = std::move(load.parameters);
    return t;
}

void load_on_chip_rows(KernelContext& ctx, builder::DmaChannel& channel, TrainedLinear& t) {
    t.bias_columns = columns(ctx, channel, t.name + ".bias/columns", t.bias, t.forward.columns);
    if (t.wants_bias_row) t.bias_row = broadcast(ctx, channel, t.name + ".bias/row", t.bias, t.forward.columns, isa::DType::Fp32);
}

void load_on_chip_rows(KernelContext& ctx, builder::DmaChannel& channel, TrainedNorm& t) {
    const isa::DType act = ctx.dtypes.activation;
    t.gamma_row = broadcast(ctx, channel, t.name + ".weight/row", t.gamma, t.size, act);
    t.beta_row = broadcast(ctx, channel, t.name + ".bias/row", t.beta, t.size, act);
    t.gamma_row_fp32 = broadcast(ctx, channel, t.name + ".weight/fp32 row", t.gamma, t.size, isa::DType::Fp32);
    t.gamma_column = columns(ctx, channel, t.name + ".weight/columns", t.gamma, t.size);
    t.beta_column = columns(ctx, channel, t.name + ".bias/columns", t.beta, t.size);
}

TrainedLayer with_on_chip_rows(KernelContext& ctx, builder::DmaChannel& channel, const TrainedLayer& layer,
                               LayerPass pass) {
    TrainedLayer t = layer;
    if (pass == LayerPass::Backward) {
        for (TrainedNorm* n : {&t.attention_norm, &t.output_norm})
            n->gamma_row_fp32 = broadcast(ctx, channel, n->name + ".weight/fp32 row", n->gamma, n->size, isa::DType::Fp32);
        return t;
    }
    for (TrainedLinear* l : {&t.query, &t.key, &t.value, &t.attention_output, &t.intermediate, &t.output})
        load_on_chip_rows(ctx, channel, *l);
    load_on_chip_rows(ctx, channel, t.attention_norm);
    load_on_chip_rows(ctx, channel, t.output_norm);
    return t;
}

device::ColumnParams zero_columns(KernelContext& ctx, uint32_t count) {
    const uint32_t rows = device::partition_tile_rows(ctx.core.spec());
    const builder::Buffer b = ctx.core.sbuf(uint64_t(count) * 4, "zero columns");
    ctx.core.memset(ctx.side_engine(), builder::tile(b, isa::DType::Fp32, 0, rows, 0, count), 0.0f);
    return {b, 0};
}

}  // namespace nsim::kernels::train
