#include "bert/hf_checkpoint.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bert/safetensors_reader.h"
#include "bert/safetensors_writer.h"
#include "common/input_error.h"

namespace nsim::kernels {
namespace {

constexpr std::string_view kModelPrefix = "bert.";

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The names a checkpoint may store `standard_name` under, most usual first.
std::vector<std::string> candidate_names(const BertTensorSlot& slot) {
    std::vector<std::string> names{slot.name};
    if (slot.is_layer_norm) {
        const std::string stem = slot.name.substr(0, slot.name.rfind('.') + 1);
        names.push_back(stem + (ends_with(slot.name, ".weight") ? "gamma" : "beta"));
    }
    if (starts_with(slot.name, kModelPrefix)) {
        const size_t n = names.size();
        for (size_t i = 0; i < n; ++i) names.push_back(names[i].substr(kModelPrefix.size()));
    }
    return names;
}

}  // namespace

BertWeights load_hf_checkpoint(const std::filesystem::path& dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw InputError(fmt::format("{}: not a checkpoint directory (expected config.json and model.safetensors)",
                                     dir.string()));
    const std::filesystem::path model_path = dir / "model.safetensors";
    if (std::filesystem::is_directory(model_path, ec))
        throw InputError(fmt::format("{}: is a directory, not a safetensors file", model_path.string()));
    if (!std::filesystem::exists(model_path, ec)) {
        const bool has_bin = std::filesystem::exists(dir / "pytorch_model.bin", ec);
        throw InputError(fmt::format("{}: no such file{}", model_path.string(),
                                     has_bin ? " (pytorch_model.bin is not read: save the model as safetensors)" : ""));
    }
    const BertConfig config = read_bert_config(dir / "config.json");
    const SafetensorsReader reader(model_path);

    BertWeights weights = bert_weights_to_load(config, true, reader.tensors().size(), (dir / "config.json").string());
    for (BertTensorSlot& slot : bert_tensor_slots(weights, true)) {
        const SafetensorsTensorInfo* found = nullptr;
        for (const std::string& name : candidate_names(slot))
            if ((found = reader.find(name))) break;
        if (!found)
            throw InputError(fmt::format("{}: missing tensor '{}' (expected shape {}){}", model_path.string(),
                                         slot.name, shape_to_string(slot.shape),
                                         starts_with(slot.name, "classifier") || starts_with(slot.name, "bert.pooler")
                                             ? "; a BertForSequenceClassification checkpoint is needed"
                                             : ""));
        if (found->shape != slot.shape)
            throw InputError(fmt::format("{}: tensor '{}' has shape {} but {} implies {}", model_path.string(),
                                         found->name, shape_to_string(found->shape),
                                         (dir / "config.json").string(), shape_to_string(slot.shape)));
        *slot.tensor = reader.read_float(*found);
    }
    return weights;
}

void save_hf_checkpoint(const std::filesystem::path& dir, const BertWeights& weights, SafetensorsDtype dtype) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw InputError(fmt::format("{}: cannot create the directory ({})", dir.string(), ec.message()));
    {
        std::ofstream config(dir / "config.json");
        config << bert_config_to_json(weights.config).dump(2) << "\n";
        if (!config) throw InputError(fmt::format("{}: write failed", (dir / "config.json").string()));
    }
    // bert_tensor_slots only hands out pointers; nothing here writes through them.
    auto& mutable_weights = const_cast<BertWeights&>(weights);
    std::vector<SafetensorsEntry> entries;
    for (const BertTensorSlot& slot : bert_tensor_slots(mutable_weights, weights.embeddings.has_value())) {
        if (slot.tensor->shape != slot.shape)
            throw InputError(fmt::format("save_hf_checkpoint: tensor '{}' has shape {} but the config implies {}",
                                         slot.name, shape_to_string(slot.tensor->shape), shape_to_string(slot.shape)));
        entries.push_back(make_safetensors_entry(slot.name, *slot.tensor, dtype));
    }
    write_safetensors(dir / "model.safetensors", entries, {{"format", "pt"}});
}

}  // namespace nsim::kernels
