#include "neuron-build/bert_command.h"

#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "bert/bert_config.h"
#include "bert/embedding_tables_file.h"
#include "bert/fhe_tiny_checkpoint.h"
#include "bert/hf_checkpoint.h"
#include "bert/random_weights.h"
#include "common/input_error.h"
#include "common/tool_main.h"
#include "config/config_set.h"
#include "device/bert_program.h"
#include "isa/container_io.h"

namespace nsim::tools {
namespace {

namespace fs = std::filesystem;

// The WordPiece vocabulary file a Hugging Face BERT checkpoint directory carries.
constexpr const char* kCheckpointVocab = "vocab.txt";
using kernels::device::BertProgramOptions;

BertProgramOptions program_options(const BertBuildOptions& o, const config::HostSpec& host) {
    BertProgramOptions p;
    const auto precision = kernels::device::precision_from_name(o.dtype);
    if (!precision) throw UserError(fmt::format("unknown --dtype '{}' ({})", o.dtype, fmt::join(kBertDtypes, ", ")));
    p.precision = *precision;
    if (o.parallel == "data") p.parallel = kernels::device::Parallelism::Data;
    else if (o.parallel == "pipeline") p.parallel = kernels::device::Parallelism::Pipeline;
    else throw UserError("unknown --parallel '" + o.parallel + "' (data, pipeline)");
    if (o.embedding == "host") p.embedding = kernels::device::EmbeddingPlacement::Host;
    else if (o.embedding == "device") p.embedding = kernels::device::EmbeddingPlacement::Device;
    else throw UserError("unknown --embedding '" + o.embedding + "' (host, device)");
    p.seq = o.seq;
    p.batch = o.batch;
    p.cores = o.cores;
    const uint32_t machine_cores = host.instance.devices * host.chip.cores_per_device;
    if (o.cores > machine_cores)
        throw UserError(std::to_string(o.cores) + " cores asked, " + host.instance.name + " has " +
                        std::to_string(machine_cores));
    // The program's device region lives in the first memory channel of each device it uses.
    p.device_memory_bytes = host.chip.memory.channel_bytes;
    return p;
}

}  // namespace

// The model: a preset name, a config.json, or (with --weights) the checkpoint's own config.
kernels::BertConfig model_config(const std::string& model, std::string* name) {
    if (model.empty()) throw UserError("--model is required without --weights (bert-base, bert-large or a config.json)");
    if (const auto preset = kernels::bert_preset_config(model)) {
        *name = model;
        return *preset;
    }
    if (!fs::exists(model)) throw UserError("--model '" + model + "' is neither bert-base, bert-large nor an existing config.json");
    *name = fs::path(model).stem().string();
    return kernels::read_bert_config(model);
}

std::string checkpoint_name(const std::string& dir) {
    const fs::path path = fs::absolute(dir).lexically_normal();
    return (path.has_filename() ? path : path.parent_path()).filename().string();
}

kernels::BertWeights load_weights(const std::string& dir) {
    if (!fs::exists(dir)) throw UserError("--weights " + dir + ": no such directory");
    if (!fs::is_directory(dir)) throw UserError("--weights " + dir + ": not a directory (a checkpoint directory expected)");
    // The bert-tiny-sst2-fhe folder's own format (weights.json + weights.bin), else Hugging Face.
    if (fs::exists(fs::path(dir) / "weights.json") && !fs::exists(fs::path(dir) / "model.safetensors"))
        return kernels::load_fhe_tiny_checkpoint(dir);
    return kernels::load_hf_checkpoint(dir);
}

BertBuild make_bert_build(const BertBuildOptions& o) {
    std::vector<fs::path> extra(o.config_files.begin(), o.config_files.end());
    const config::ConfigSet configs = config::ConfigSet::load(config::ConfigSet::default_dir(), extra);
    const config::HostSpec host = configs.host(o.instance);
    BertProgramOptions p = program_options(o, host);
    try {
        std::optional<kernels::BertWeights> weights;
        if (!o.weights.empty()) {
            weights = load_weights(o.weights);
            p.config = weights->config;
            p.model_name = o.model.empty() ? checkpoint_name(o.weights) : o.model;
            if (!o.model.empty() && !kernels::bert_preset_config(o.model) && !fs::exists(o.model))
                throw UserError("--model '" + o.model + "' is neither bert-base, bert-large nor an existing config.json");
        } else {
            p.config = model_config(o.model, &p.model_name);
            // With the embedding tables wherever the embedding runs: on the host they are written next
            // to the program for runs that start from token ids (run --pairs).
            if (!o.timing_only) weights = kernels::random_bert_weights(p.config, o.seed);
        }
        if (o.timing_only) weights.reset();
        BertBuild build{kernels::device::build_bert_program(host.chip.core, p, weights ? &*weights : nullptr), {}, {}};
        build.program.metadata.emplace_back("instance", host.instance.name);
        if (o.weights.empty() && !o.timing_only) build.program.metadata.emplace_back("weights_seed", std::to_string(o.seed));
        // The checkpoint's own tokenizer vocabulary, as from_pretrained(DIR) would take it.
        if (const fs::path vocab = fs::path(o.weights) / kCheckpointVocab; !o.weights.empty() && fs::is_regular_file(vocab))
            build.program.metadata.emplace_back("vocab", fs::absolute(vocab).lexically_normal().string());
        if (weights && weights->embeddings && p.embedding == kernels::device::EmbeddingPlacement::Host)
            build.host_embedding = std::move(weights);
        build.description = p.model_name + ", " + std::to_string(p.config.num_hidden_layers) + " layers, batch " +
                            std::to_string(p.batch) + ", seq " + std::to_string(p.seq) + ", " + o.dtype + ", " +
                            std::to_string(p.cores) + " core(s) of " + host.chip.core.name + " (" + o.parallel +
                            " parallel), embedding on the " + o.embedding;
        return build;
    } catch (const kernels::InputError& e) {
        throw UserError(e.what());
    } catch (const kernels::device::BuildError& e) {
        throw UserError(e.what());
    }
}

int build_bert(const BertBuildOptions& o) {
    // Checked before anything is written, so a bad -o leaves no embedding tables behind.
    if (std::error_code ec; fs::is_directory(o.output, ec))
        throw UserError("-o " + o.output + ": is a directory, not a file to write the program to");
    BertBuild build = make_bert_build(o);
    std::string tables_note;
    if (build.host_embedding) {
        // The host's part of the model goes next to the device program (see embedding_tables_file.h).
        const fs::path tables = kernels::host_embedding_tables_path(o.output);
        const uint32_t crc = kernels::save_embedding_tables(tables, *build.host_embedding->embeddings);
        build.program.metadata.emplace_back("host_embedding_tables_crc32", std::to_string(crc));
        tables_note = " (its tables in " + tables.string() + ")";
    }
    isa::write_container_file(o.output, build.program);
    std::cout << "wrote " << o.output << ": " << build.description << tables_note << "\n";
    return 0;
}

}  // namespace nsim::tools
