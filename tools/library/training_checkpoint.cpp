#include "library/training_checkpoint.h"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "bert/bert_config.h"
#include "bert/hf_checkpoint.h"
#include "builder/program_builder.h"
#include "common/input_error.h"
#include "library/library_error.h"
#include "train/training_program.h"

namespace nsim::library {

kernels::BertWeights trained_weights(Session& session) {
    const isa::Container& program = session.program();
    const std::string config_text = program.metadata_value("bert_config");
    if (config_text.empty()) throw Error("the training program records no model config (rebuild it with neuron-build bert-train)");
    kernels::BertWeights weights;
    try {
        weights = kernels::make_empty_bert_weights(
            kernels::parse_bert_config(nlohmann::json::parse(config_text), "the training program's bert_config"), true,
            program.metadata_value("task") == kernels::train::kPretrainTask);
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("the training program's bert_config does not parse: ") + e.what());
    } catch (const kernels::InputError& e) {
        throw Error(e.what());
    }
    // The tensors' home copy: the region of the first device the program runs on.
    const runtime::Model& model = session.model();
    const auto& regions = model.loaded.placement.device_regions;
    size_t home = 0;
    while (home < regions.size() && !regions[home].home) ++home;
    if (home == regions.size()) throw Error("the training program has no device memory region");
    for (const kernels::BertTensorSlot& slot : kernels::bert_tensor_slots(weights, true)) {
        const auto t = std::find_if(program.tensors.begin(), program.tensors.end(),
                                    [&](const isa::TensorInfo& info) { return info.name == slot.name; });
        if (t == program.tensors.end()) throw Error("the training program has no parameter tensor '" + slot.name + "'");
        std::vector<uint8_t> bytes(t->size_bytes());
        session.runtime().driver().copy_from_device(model.region_handles.at(home), t->offset, bytes.data(), bytes.size());
        *slot.tensor = kernels::Tensor(slot.shape);
        const size_t expected = slot.tensor->values.size();
        slot.tensor->values = kernels::builder::decode_values(bytes.data(), bytes.size() / isa::size_in_bytes(t->dtype), t->dtype);
        if (slot.tensor->values.size() != expected)
            throw Error(fmt::format("parameter tensor '{}' holds {} values, the config implies {}", slot.name,
                                    slot.tensor->values.size(), expected));
    }
    return weights;
}

void save_training_checkpoint(Session& session, const std::filesystem::path& dir, const std::filesystem::path& vocab) {
    const kernels::BertWeights weights = trained_weights(session);
    try {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) throw Error(fmt::format("--save {}: {}", dir.string(), ec.message()));
        kernels::save_hf_checkpoint(dir, weights);
        std::filesystem::copy_file(vocab, dir / "vocab.txt", std::filesystem::copy_options::overwrite_existing, ec);
        if (ec) throw Error(fmt::format("--save {}: cannot copy the vocabulary: {}", dir.string(), ec.message()));
    } catch (const kernels::InputError& e) {
        throw Error(e.what());
    }
}

}  // namespace nsim::library
