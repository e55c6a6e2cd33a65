#include "device/model_tensors.h"

#include <algorithm>
#include <string>

namespace nsim::kernels::device {
namespace {

using builder::ProgramBuilder;
using isa::TensorRole;


// W [out, in] -> W^T [in, out] row-major. In square blocks that stay in the cache: row by row,
// every value went to another cache line (BERT-large's 1024 x 4096 matrices: a third of
// neuron-build's CPU).
std::vector<float> transposed(const Tensor& w) {
    constexpr size_t kBlock = 32;
    const size_t out = w.rows(), in = w.cols();
    std::vector<float> t(in * out);
    for (size_t o0 = 0; o0 < out; o0 += kBlock)
        for (size_t i0 = 0; i0 < in; i0 += kBlock)
            for (size_t o = o0; o < std::min(out, o0 + kBlock); ++o)
                for (size_t i = i0; i < std::min(in, i0 + kBlock); ++i) t[i * out + o] = w.values[o * in + i];
    return t;
}

class Writer {
public:
    Writer(ProgramBuilder& program, const DtypePlan& dtypes, const BertWeights* weights, uint32_t tile_rows)
        : program_(program), dtypes_(dtypes), with_data_(weights != nullptr), tile_rows_(tile_rows) {}

    // Interleaved by k-tile, in column panels `panel` wide, when the input features are whole k-tiles.
    DramMatrix linear(const std::string& name, const LinearWeights* w, uint32_t in, uint32_t out, uint32_t panel) {
        DramMatrix m{0, in, out, dtypes_.matmul};
        if (in % tile_rows_ == 0) {
            m.interleave = tile_rows_;
            m.panel_columns = panel < out ? panel : 0;
        }
        std::vector<uint8_t> data;
        if (with_data_) {
            std::vector<float> values = transposed(w->weight);
            if (m.interleave) values = lay_out(m, values);
            data = builder::encode_values(values, dtypes_.matmul);
        }
        m.tensor = program_.add_tensor(name, TensorRole::Weight, dtypes_.matmul, {in, out}, std::move(data));
        return m;
    }

    // Embedding tables: gathered and added, never multiplied, so kept in the activation dtype.
    DramMatrix table(const std::string& name, const Tensor* w, uint32_t rows, uint32_t cols) {
        std::vector<uint8_t> data;
        if (with_data_) data = builder::encode_values(w->values, dtypes_.activation);
        const uint32_t t = program_.add_tensor(name, TensorRole::Weight, dtypes_.activation, {rows, cols}, std::move(data));
        return {t, rows, cols, dtypes_.activation};
    }

    // Per-partition columns: each vector is cut into tiles of tile_rows, one column per tile.
    uint32_t columns(const std::string& name, const std::vector<const Tensor*>& vectors, const std::vector<uint32_t>& lengths) {
        uint32_t count = 0;
        for (uint32_t n : lengths) count += ceil_div(n, tile_rows_);
        std::vector<uint8_t> data;
        if (with_data_) {
            std::vector<float> values(size_t(tile_rows_) * count, 0.0f);
            uint32_t column = 0;
            for (size_t v = 0; v < vectors.size(); ++v) {
                for (uint32_t i = 0; vectors[v] && i < lengths[v]; ++i)
                    values[size_t(i % tile_rows_) * count + column + i / tile_rows_] = vectors[v]->values[i];
                column += ceil_div(lengths[v], tile_rows_);
            }
            data = builder::encode_values(values, isa::DType::Fp32);
        }
        return program_.add_tensor(name, TensorRole::Weight, isa::DType::Fp32, {tile_rows_, count}, std::move(data));
    }

    // [2, hidden]: gamma (or ones when absent), beta + extra (each optional).
    uint32_t norm_rows(const std::string& name, const LayerNormWeights* norm, const Tensor* extra, uint32_t hidden) {
        std::vector<uint8_t> data;
        if (with_data_) {
            std::vector<float> values(2 * size_t(hidden), 0.0f);
            for (uint32_t i = 0; i < hidden; ++i) {
                values[i] = norm ? norm->gamma.values[i] : 1.0f;
                values[hidden + i] = (norm ? norm->beta.values[i] : 0.0f) + (extra ? extra->values[i] : 0.0f);
            }
            data = builder::encode_values(values, dtypes_.activation);
        }
        return program_.add_tensor(name, TensorRole::Weight, dtypes_.activation, {2, hidden}, std::move(data));
    }

private:
    ProgramBuilder& program_;
    DtypePlan dtypes_;
    bool with_data_;
    uint32_t tile_rows_;
};

}  // namespace

LayerColumns layer_columns(uint32_t h, uint32_t i) {
    LayerColumns c;
    uint32_t next = 0;
    c.query_bias = next, next += h;
    c.key_bias = next, next += h;
    c.value_bias = next, next += h;
    c.intermediate_bias = next, next += i;
    c.gamma1 = next, next += h;
    c.beta1 = next, next += h;
    c.gamma2 = next, next += h;
    c.beta2 = next, next += h;
    c.count = next;
    return c;
}

ModelTensors add_model_tensors(ProgramBuilder& program, const BertConfig& config, const DtypePlan& dtypes,
                               bool device_embedding, const BertWeights* weights, const WeightPanels& panels) {
    const uint32_t tile_rows = partition_tile_rows(program.spec());
    const uint32_t hidden = uint32_t(config.hidden_size), inter = uint32_t(config.intermediate_size);
    const uint32_t layers = uint32_t(config.num_hidden_layers), labels = uint32_t(config.num_labels);
    Writer w(program, dtypes, weights, tile_rows);
    ModelTensors m;
    m.device_embedding = device_embedding;
    m.column_count = layer_columns(ceil_div(hidden, tile_rows), ceil_div(inter, tile_rows)).count;
    const BertLayerWeights* none = nullptr;
    const bool data = weights != nullptr;
    const Tensor* first_output_bias = data && layers ? &weights->layers[0].attention_output.bias : nullptr;

    if (device_embedding) {
        const auto* e = data ? &*weights->embeddings : nullptr;
        m.tables.word = w.table("embeddings.word", data ? &e->word : nullptr, uint32_t(config.vocab_size), hidden);
        m.tables.position =
            w.table("embeddings.position", data ? &e->position : nullptr, uint32_t(config.max_position_embeddings), hidden);
        m.tables.token_type =
            w.table("embeddings.token_type", data ? &e->token_type : nullptr, uint32_t(config.type_vocab_size), hidden);
        m.embedding_rows = w.norm_rows("embeddings.layer_norm", data ? &e->layer_norm : nullptr, first_output_bias, hidden);
        m.embedding_columns = w.columns("embeddings.layer_norm.columns",
                                        {data ? &e->layer_norm.gamma : nullptr, data ? &e->layer_norm.beta : nullptr},
                                        {hidden, hidden});
    } else {
        m.embedding_rows = w.norm_rows("embeddings.output_bias", nullptr, first_output_bias, hidden);
    }

    for (uint32_t l = 0; l < layers; ++l) {
        const BertLayerWeights* lw = data ? &weights->layers[l] : none;
        const std::string p = "layer" + std::to_string(l) + ".";
        LayerTensors t;
        const LayerPanels lp = l < panels.layers.size() ? panels.layers[l] : LayerPanels{};
        t.query = w.linear(p + "query", lw ? &lw->query : nullptr, hidden, hidden, lp.query);
        t.key = w.linear(p + "key", lw ? &lw->key : nullptr, hidden, hidden, lp.key);
        t.value = w.linear(p + "value", lw ? &lw->value : nullptr, hidden, hidden, lp.value);
        t.attention_output =
            w.linear(p + "attention_output", lw ? &lw->attention_output : nullptr, hidden, hidden, lp.attention_output);
        t.intermediate = w.linear(p + "intermediate", lw ? &lw->intermediate : nullptr, hidden, inter, lp.intermediate);
        t.output = w.linear(p + "output", lw ? &lw->output : nullptr, inter, hidden, lp.output);
        auto v = [&](const Tensor& x) { return lw ? &x : nullptr; };
        const BertLayerWeights& r = lw ? *lw : BertLayerWeights{};
        t.columns = w.columns(p + "columns",
                              {v(r.query.bias), v(r.key.bias), v(r.value.bias), v(r.intermediate.bias),
                               v(r.attention_layer_norm.gamma), v(r.attention_layer_norm.beta),
                               v(r.output_layer_norm.gamma), v(r.output_layer_norm.beta)},
                              {hidden, hidden, hidden, inter, hidden, hidden, hidden, hidden});
        t.norm1_rows = w.norm_rows(p + "norm1", lw ? &lw->attention_layer_norm : nullptr, lw ? &lw->output.bias : nullptr,
                                   hidden);
        const Tensor* next_bias = data && l + 1 < layers ? &weights->layers[l + 1].attention_output.bias : nullptr;
        t.norm2_rows = w.norm_rows(p + "norm2", lw ? &lw->output_layer_norm : nullptr, next_bias, hidden);
        m.layers.push_back(t);
    }
    m.pooler = w.linear("pooler", data ? &weights->pooler : nullptr, hidden, hidden, panels.pooler);
    m.classifier = w.linear("classifier", data ? &weights->classifier : nullptr, hidden, labels, panels.classifier);
    m.head_columns = w.columns("head.columns", {data ? &weights->pooler.bias : nullptr, data ? &weights->classifier.bias : nullptr},
                               {hidden, labels});
    return m;
}

}  // namespace nsim::kernels::device
