// The parameters of BertForSequenceClassification (or, with `pretraining`, BertForPreTraining) in fp32,
// in Hugging Face's layouts: Linear weights are [out_features, in_features] and y = x W^T + b.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bert/bert_config.h"
#include "bert/tensor.h"

namespace nsim::kernels {

struct LinearWeights {
    Tensor weight;  // [out, in]
    Tensor bias;    // [out]
};

struct LayerNormWeights {
    Tensor gamma;  // [hidden]; "weight" (or "gamma" in older checkpoints)
    Tensor beta;   // [hidden]; "bias" (or "beta")
};

struct BertEmbeddingWeights {
    Tensor word;        // [vocab_size, hidden]
    Tensor position;    // [max_position_embeddings, hidden]
    Tensor token_type;  // [type_vocab_size, hidden]
    LayerNormWeights layer_norm;
};

struct BertLayerWeights {
    LinearWeights query, key, value;  // [hidden, hidden]
    LinearWeights attention_output;   // [hidden, hidden]
    LayerNormWeights attention_layer_norm;
    LinearWeights intermediate;  // [intermediate, hidden]
    LinearWeights output;        // [hidden, intermediate]
    LayerNormWeights output_layer_norm;
};

// BertForPreTraining's masked-LM head (cls.predictions): transform (dense, GELU, LayerNorm), then the
// decoder to the vocabulary, whose weight is the word embeddings (tied) plus its own bias. Its
// next-sentence head (cls.seq_relationship, [2, hidden] on the pooled output) is BertWeights::classifier.
struct BertPretrainingHeads {
    LinearWeights transform;          // [hidden, hidden]
    LayerNormWeights transform_norm;  // [hidden]
    Tensor decoder_bias;              // [vocab_size]
};

struct BertWeights {
    BertConfig config;
    // Absent when the model runs from embedding-layer outputs computed elsewhere (bert-tiny-sst2-fhe).
    std::optional<BertEmbeddingWeights> embeddings;
    std::vector<BertLayerWeights> layers;
    LinearWeights pooler;      // [hidden, hidden], tanh
    LinearWeights classifier;  // [num_labels, hidden]; with pretraining heads: next-sentence, [2, hidden]
    std::optional<BertPretrainingHeads> pretraining;
};

// One parameter: its Hugging Face name, the shape the config implies, and where it lives.
struct BertTensorSlot {
    std::string name;  // e.g. "bert.encoder.layer.3.attention.self.query.weight"
    Shape shape;
    Tensor* tensor = nullptr;
    bool is_embedding = false;
    bool is_layer_norm = false;
};

// Every parameter of `weights` in state_dict order (with pretraining heads: the classifier named
// cls.seq_relationship, then the masked-LM head's cls.predictions.* after it; the tied decoder weight is
// the word embeddings' slot). Embedding slots are listed only when
// `with_embeddings`; the caller makes sure weights.embeddings / weights.layers exist to point into.
std::vector<BertTensorSlot> bert_tensor_slots(BertWeights& weights, bool with_embeddings);

// BertWeights with containers sized for the config (layers, optional embeddings) and every tensor
// shaped but zero; loaders then fill the slots.
// With `pretraining`, the masked-LM head too (and a 2-way classifier: config.num_labels must be 2).
BertWeights make_empty_bert_weights(const BertConfig& config, bool with_embeddings, bool pretraining = false);

// BertWeights with the config's layers in place but no tensor allocated, for a loader that fills
// each slot from a checkpoint of `checkpoint_tensors` tensors. A num_hidden_layers needing more
// tensors than that is an InputError naming `source`, raised before anything is allocated.
BertWeights bert_weights_to_load(const BertConfig& config, bool with_embeddings, size_t checkpoint_tensors,
                                 const std::string& source);

}  // namespace nsim::kernels
