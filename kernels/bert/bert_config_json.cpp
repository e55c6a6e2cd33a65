// config.json <-> BertConfig. Keys BERT does not use (architectures, classifier_dropout, ...) are ignored, as
// transformers ignores them; keys that would change the model's function must hold values we implement.
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bert/bert_config.h"
#include "bert/json_input.h"
#include "common/input_error.h"
#include "common/input_file.h"

namespace nsim::kernels {
namespace {

using nlohmann::json;

// transformers' config.json files are about 1 KB (a large id2label map stays under 1 MiB).
constexpr uint64_t kMaxConfigJsonBytes = uint64_t(4) << 20;


// A short rendering of an offending value; long objects are cut so the message stays one line.
std::string describe(const json& value) {
    std::string text = value.dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

void read_int(const json& object, const std::string& source, const char* key, int64_t& out) {
    auto it = object.find(key);
    if (it == object.end()) return;
    if (!it->is_number_integer()) fail_config_key(source, key, fmt::format("must be a positive integer, got {}", describe(*it)));
    out = it->get<int64_t>();
}

void read_number(const json& object, const std::string& source, const char* key, double& out) {
    auto it = object.find(key);
    if (it == object.end()) return;
    if (!it->is_number()) fail_config_key(source, key, fmt::format("must be a number, got {}", describe(*it)));
    out = it->get<double>();
}

const std::string* read_string(const json& object, const std::string& source, const char* key) {
    auto it = object.find(key);
    if (it == object.end()) return nullptr;
    if (!it->is_string()) fail_config_key(source, key, fmt::format("must be a string, got {}", describe(*it)));
    return it->get_ptr<const std::string*>();
}

// id2label is {"0": "name", "1": "name"}; ids must be 0..n-1.
std::vector<std::string> read_label_names(const json& object, const std::string& source) {
    auto it = object.find("id2label");
    if (it == object.end()) return {};
    if (!it->is_object()) fail_config_key(source, "id2label", fmt::format("must be an object, got {}", describe(*it)));
    std::vector<std::string> names(it->size());
    std::vector<bool> seen(it->size(), false);
    for (const auto& [id_text, name] : it->items()) {
        size_t id = 0;
        size_t used = 0;
        try {
            id = std::stoul(id_text, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != id_text.size() || id_text.empty() || id >= names.size() || seen[id])
            fail_config_key(source, "id2label",
                 fmt::format("ids must be \"0\"..\"{}\", got \"{}\"", names.size() - 1, id_text));
        if (!name.is_string()) fail_config_key(source, "id2label", fmt::format("label {} must be a string", id_text));
        names[id] = name.get<std::string>();
        seen[id] = true;
    }
    return names;
}

}  // namespace

BertConfig parse_bert_config(const json& object, const std::string& source) {
    if (!object.is_object()) throw InputError(fmt::format("{}: must hold a JSON object", source));
    if (const std::string* type = read_string(object, source, "model_type"); type && *type != "bert")
        fail_config_key(source, "model_type", fmt::format("\"{}\" is not supported (only \"bert\")", *type));
    if (const std::string* pos = read_string(object, source, "position_embedding_type"); pos && *pos != "absolute")
        fail_config_key(source, "position_embedding_type", fmt::format("\"{}\" is not supported (only \"absolute\")", *pos));
    for (const char* key : {"is_decoder", "add_cross_attention"}) {
        auto it = object.find(key);
        if (it != object.end() && it->is_boolean() && it->get<bool>())
            fail_config_key(source, key, "true is not supported (encoder-only BERT)");
    }

    BertConfig config;
    read_int(object, source, "vocab_size", config.vocab_size);
    read_int(object, source, "hidden_size", config.hidden_size);
    read_int(object, source, "num_hidden_layers", config.num_hidden_layers);
    read_int(object, source, "num_attention_heads", config.num_attention_heads);
    read_int(object, source, "intermediate_size", config.intermediate_size);
    read_int(object, source, "max_position_embeddings", config.max_position_embeddings);
    read_int(object, source, "type_vocab_size", config.type_vocab_size);
    read_number(object, source, "layer_norm_eps", config.layer_norm_eps);
    read_number(object, source, "initializer_range", config.initializer_range);
    read_number(object, source, "hidden_dropout_prob", config.hidden_dropout_prob);
    read_number(object, source, "attention_probs_dropout_prob", config.attention_probs_dropout_prob);
    if (const std::string* act = read_string(object, source, "hidden_act")) {
        auto parsed = hidden_act_from_name(*act);
        if (!parsed)
            fail_config_key(source, "hidden_act", fmt::format("\"{}\" is not one of {}", *act, known_hidden_act_names()));
        config.hidden_act = *parsed;
    }
    config.label_names = read_label_names(object, source);
    // transformers derives num_labels from id2label when the key itself is absent.
    if (!config.label_names.empty()) config.num_labels = static_cast<int64_t>(config.label_names.size());
    read_int(object, source, "num_labels", config.num_labels);

    validate_bert_config(config, source);
    return config;
}

BertConfig read_bert_config(const std::filesystem::path& path) {
    const std::string source = path.string();
    const json object =
        parse_json_or_input_error(read_input_text(path, kMaxConfigJsonBytes, "model config"), source, "not valid JSON");
    return parse_bert_config(object, source);
}

json bert_config_to_json(const BertConfig& config) {
    json object = {
        {"architectures", {"BertForSequenceClassification"}},
        {"model_type", "bert"},
        {"vocab_size", config.vocab_size},
        {"hidden_size", config.hidden_size},
        {"num_hidden_layers", config.num_hidden_layers},
        {"num_attention_heads", config.num_attention_heads},
        {"intermediate_size", config.intermediate_size},
        {"hidden_act", std::string(hidden_act_name(config.hidden_act))},
        {"max_position_embeddings", config.max_position_embeddings},
        {"type_vocab_size", config.type_vocab_size},
        {"layer_norm_eps", config.layer_norm_eps},
        {"initializer_range", config.initializer_range},
        {"hidden_dropout_prob", config.hidden_dropout_prob},
        {"attention_probs_dropout_prob", config.attention_probs_dropout_prob},
        {"num_labels", config.num_labels},
        {"position_embedding_type", "absolute"},
    };
    if (!config.label_names.empty()) {
        json id2label = json::object();
        for (size_t i = 0; i < config.label_names.size(); ++i) id2label[std::to_string(i)] = config.label_names[i];
        object["id2label"] = id2label;
    }
    return object;
}

}  // namespace nsim::kernels
