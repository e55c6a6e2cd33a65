// The dimensions and numerics of a BERT encoder with a sequence-classification head, as a Hugging Face
// `config.json` gives them, plus the two presets users ask for by name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace nsim::kernels {

// hidden_act: "gelu" is the exact erf form; "gelu_new" and "gelu_pytorch_tanh" are the tanh approximation.
enum class HiddenActivation { GeluErf, GeluTanh, Relu };

std::string_view hidden_act_name(HiddenActivation act);
// Every spelling config.json may use, with the activation it means.
std::optional<HiddenActivation> hidden_act_from_name(std::string_view name);
// "gelu, gelu_new, gelu_pytorch_tanh, relu", for messages.
std::string known_hidden_act_names();

// Defaults are Hugging Face BertConfig's, so a config.json that omits a key means what it means there.
struct BertConfig {
    int64_t vocab_size = 30522;
    int64_t hidden_size = 768;
    int64_t num_hidden_layers = 12;
    int64_t num_attention_heads = 12;
    int64_t intermediate_size = 3072;
    HiddenActivation hidden_act = HiddenActivation::GeluErf;
    int64_t max_position_embeddings = 512;
    int64_t type_vocab_size = 2;
    double layer_norm_eps = 1e-12;
    double initializer_range = 0.02;
    int64_t num_labels = 2;
    // Dropout during training (HF's defaults; inference ignores them): on the hidden states (the
    // embeddings' output, each attention and FFN output dense's output) and on the attention
    // probabilities.
    double hidden_dropout_prob = 0.1;
    double attention_probs_dropout_prob = 0.1;
    // id2label in id order; empty when the config names no labels.
    std::vector<std::string> label_names;

    int64_t head_size() const { return hidden_size / num_attention_heads; }
};

BertConfig bert_base_config();   // bert-base-uncased: 12 layers, hidden 768, 12 heads, FFN 3072
BertConfig bert_large_config();  // bert-large-uncased: 24 layers, hidden 1024, 16 heads, FFN 4096
// "bert-base" / "bert-large"; nullopt for any other name.
std::optional<BertConfig> bert_preset_config(std::string_view name);

// Throws InputError "<source>: key '<key>': <problem>": the one line every bad key of a model config gets.
[[noreturn]] void fail_config_key(const std::string& source, std::string_view key, const std::string& problem);

// Throws InputError "<source>: key '<key>': <problem>" for the first problem found.
void validate_bert_config(const BertConfig& config, const std::string& source);

// Reads and validates a Hugging Face config.json. `source` names the file in messages.
BertConfig parse_bert_config(const nlohmann::json& json, const std::string& source);
BertConfig read_bert_config(const std::filesystem::path& path);
// The same keys back, so a checkpoint written by a test is a checkpoint any BERT user could read.
nlohmann::json bert_config_to_json(const BertConfig& config);

}  // namespace nsim::kernels
