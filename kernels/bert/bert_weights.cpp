#include "bert/bert_weights.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "common/input_error.h"

namespace nsim::kernels {
namespace {

class SlotList {
public:
    void linear(const std::string& prefix, LinearWeights& w, size_t out, size_t in) {
        add(prefix + ".weight", {out, in}, w.weight, false);
        add(prefix + ".bias", {out}, w.bias, false);
    }
    void layer_norm(const std::string& prefix, LayerNormWeights& w, size_t hidden) {
        add(prefix + ".weight", {hidden}, w.gamma, true);
        add(prefix + ".bias", {hidden}, w.beta, true);
    }
    void add(std::string name, Shape shape, Tensor& tensor, bool is_layer_norm, bool is_embedding = false) {
        slots.push_back({std::move(name), std::move(shape), &tensor, is_embedding, is_layer_norm});
    }
    std::vector<BertTensorSlot> slots;
};

}  // namespace

std::vector<BertTensorSlot> bert_tensor_slots(BertWeights& weights, bool with_embeddings) {
    const BertConfig& c = weights.config;
    const auto hidden = static_cast<size_t>(c.hidden_size);
    const auto inner = static_cast<size_t>(c.intermediate_size);
    if (with_embeddings && !weights.embeddings)
        throw std::invalid_argument("bert_tensor_slots: embedding slots asked of weights without embeddings");
    SlotList list;
    if (with_embeddings) {
        BertEmbeddingWeights& e = *weights.embeddings;
        list.add("bert.embeddings.word_embeddings.weight", {static_cast<size_t>(c.vocab_size), hidden}, e.word, false, true);
        list.add("bert.embeddings.position_embeddings.weight", {static_cast<size_t>(c.max_position_embeddings), hidden},
                 e.position, false, true);
        list.add("bert.embeddings.token_type_embeddings.weight", {static_cast<size_t>(c.type_vocab_size), hidden},
                 e.token_type, false, true);
        const size_t before = list.slots.size();
        list.layer_norm("bert.embeddings.LayerNorm", e.layer_norm, hidden);
        for (size_t i = before; i < list.slots.size(); ++i) list.slots[i].is_embedding = true;
    }
    for (size_t n = 0; n < weights.layers.size(); ++n) {
        BertLayerWeights& layer = weights.layers[n];
        const std::string p = fmt::format("bert.encoder.layer.{}", n);
        list.linear(p + ".attention.self.query", layer.query, hidden, hidden);
        list.linear(p + ".attention.self.key", layer.key, hidden, hidden);
        list.linear(p + ".attention.self.value", layer.value, hidden, hidden);
        list.linear(p + ".attention.output.dense", layer.attention_output, hidden, hidden);
        list.layer_norm(p + ".attention.output.LayerNorm", layer.attention_layer_norm, hidden);
        list.linear(p + ".intermediate.dense", layer.intermediate, inner, hidden);
        list.linear(p + ".output.dense", layer.output, hidden, inner);
        list.layer_norm(p + ".output.LayerNorm", layer.output_layer_norm, hidden);
    }
    list.linear("bert.pooler.dense", weights.pooler, hidden, hidden);
    if (!weights.pretraining) {
        list.linear("classifier", weights.classifier, static_cast<size_t>(c.num_labels), hidden);
        return std::move(list.slots);
    }
    list.linear("cls.seq_relationship", weights.classifier, static_cast<size_t>(c.num_labels), hidden);
    BertPretrainingHeads& heads = *weights.pretraining;
    list.linear("cls.predictions.transform.dense", heads.transform, hidden, hidden);
    list.layer_norm("cls.predictions.transform.LayerNorm", heads.transform_norm, hidden);
    list.add("cls.predictions.bias", {static_cast<size_t>(c.vocab_size)}, heads.decoder_bias, false);
    return std::move(list.slots);
}

BertWeights bert_weights_to_load(const BertConfig& config, bool with_embeddings, size_t checkpoint_tensors,
                                 const std::string& source) {
    BertWeights one;
    one.config = config;
    one.layers.resize(1);
    size_t per_layer = 0;
    for (const BertTensorSlot& slot : bert_tensor_slots(one, false))
        if (slot.name.find(".layer.0.") != std::string::npos) ++per_layer;
    const uint64_t layers_possible = checkpoint_tensors / std::max<size_t>(per_layer, 1);
    if (uint64_t(config.num_hidden_layers) > layers_possible)
        throw InputError(fmt::format("{}: num_hidden_layers is {}, but the checkpoint holds {} tensors, enough for at "
                                     "most {} layers", source, config.num_hidden_layers, checkpoint_tensors,
                                     layers_possible));
    BertWeights weights;
    weights.config = config;
    if (with_embeddings) weights.embeddings.emplace();
    weights.layers.resize(static_cast<size_t>(config.num_hidden_layers));
    return weights;
}

BertWeights make_empty_bert_weights(const BertConfig& config, bool with_embeddings, bool pretraining) {
    if (pretraining && config.num_labels != 2)
        throw std::invalid_argument("make_empty_bert_weights: the next-sentence head has 2 labels");
    BertWeights weights;
    weights.config = config;
    if (with_embeddings) weights.embeddings.emplace();
    if (pretraining) weights.pretraining.emplace();
    weights.layers.resize(static_cast<size_t>(config.num_hidden_layers));
    for (BertTensorSlot& slot : bert_tensor_slots(weights, with_embeddings)) *slot.tensor = Tensor(slot.shape);
    return weights;
}

}  // namespace nsim::kernels
