#include "bert/bert_config.h"

#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "common/input_error.h"

namespace nsim::kernels {
namespace {

constexpr std::array<std::pair<std::string_view, HiddenActivation>, 4> kHiddenActNames{{
    {"gelu", HiddenActivation::GeluErf},
    {"gelu_new", HiddenActivation::GeluTanh},
    {"gelu_pytorch_tanh", HiddenActivation::GeluTanh},
    {"relu", HiddenActivation::Relu},
}};


void require_positive(const std::string& source, std::string_view key, int64_t value) {
    if (value <= 0) fail_config_key(source, key, fmt::format("must be a positive integer, got {}", value));
}

}  // namespace

void fail_config_key(const std::string& source, std::string_view key, const std::string& problem) {
    throw InputError(fmt::format("{}: key '{}': {}", source, key, problem));
}

std::string_view hidden_act_name(HiddenActivation act) {
    for (const auto& [name, value] : kHiddenActNames)
        if (value == act) return name;
    return "?";
}

std::optional<HiddenActivation> hidden_act_from_name(std::string_view name) {
    for (const auto& [known, value] : kHiddenActNames)
        if (known == name) return value;
    return std::nullopt;
}

std::string known_hidden_act_names() {
    std::string out;
    for (const auto& entry : kHiddenActNames) {
        if (!out.empty()) out += ", ";
        out += entry.first;
    }
    return out;
}

BertConfig bert_base_config() { return BertConfig{}; }

BertConfig bert_large_config() {
    BertConfig config;
    config.hidden_size = 1024;
    config.num_hidden_layers = 24;
    config.num_attention_heads = 16;
    config.intermediate_size = 4096;
    return config;
}

std::optional<BertConfig> bert_preset_config(std::string_view name) {
    if (name == "bert-base") return bert_base_config();
    if (name == "bert-large") return bert_large_config();
    return std::nullopt;
}

void validate_bert_config(const BertConfig& config, const std::string& source) {
    require_positive(source, "vocab_size", config.vocab_size);
    require_positive(source, "hidden_size", config.hidden_size);
    require_positive(source, "num_hidden_layers", config.num_hidden_layers);
    require_positive(source, "num_attention_heads", config.num_attention_heads);
    require_positive(source, "intermediate_size", config.intermediate_size);
    require_positive(source, "max_position_embeddings", config.max_position_embeddings);
    require_positive(source, "type_vocab_size", config.type_vocab_size);
    require_positive(source, "num_labels", config.num_labels);
    if (config.hidden_size % config.num_attention_heads != 0)
        fail_config_key(source, "hidden_size",
             fmt::format("{} is not divisible by num_attention_heads ({})", config.hidden_size,
                         config.num_attention_heads));
    if (!(std::isfinite(config.layer_norm_eps) && config.layer_norm_eps > 0))
        fail_config_key(source, "layer_norm_eps", fmt::format("must be a positive number, got {}", config.layer_norm_eps));
    if (!(std::isfinite(config.initializer_range) && config.initializer_range >= 0))
        fail_config_key(source, "initializer_range",
             fmt::format("must be a non-negative number, got {}", config.initializer_range));
    for (const auto& [key, p] : {std::pair{"hidden_dropout_prob", config.hidden_dropout_prob},
                                 std::pair{"attention_probs_dropout_prob", config.attention_probs_dropout_prob}})
        if (!(p >= 0 && p < 1)) fail_config_key(source, key, fmt::format("must be in [0, 1), got {}", p));
    if (!config.label_names.empty() && static_cast<int64_t>(config.label_names.size()) != config.num_labels)
        fail_config_key(source, "id2label",
             fmt::format("has {} labels but num_labels is {}", config.label_names.size(), config.num_labels));
}

}  // namespace nsim::kernels
