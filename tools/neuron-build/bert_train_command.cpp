#include "neuron-build/bert_train_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "bert/random_weights.h"
#include "common/input_error.h"
#include "common/tool_main.h"
#include "config/config_set.h"
#include "isa/container_io.h"
#include "neuron-build/bert_command.h"
#include "train/training_program.h"

namespace nsim::tools {

namespace fs = std::filesystem;

BertTrainBuild make_bert_train_build(const BertTrainBuildOptions& o) {
    std::vector<fs::path> extra(o.config_files.begin(), o.config_files.end());
    const config::ConfigSet configs = config::ConfigSet::load(config::ConfigSet::default_dir(), extra);
    const config::HostSpec host = configs.host(o.instance);
    // The training kernels give work to every engine, the GpSimd engine too, which NeuronCore-v1 lacks.
    const auto& engines = host.chip.core.engines;
    if (std::none_of(engines.begin(), engines.end(), [](const auto& e) { return e.name == "gpsimd"; }))
        throw UserError(fmt::format("{}'s {} has no GpSimd engine, which the training kernels use: training runs on "
                                    "NeuronCore-v2 and later", host.instance.name, host.chip.core.name));
    const uint32_t machine_cores = host.instance.devices * host.chip.cores_per_device;
    if (o.cores > machine_cores)
        throw UserError(std::to_string(o.cores) + " cores asked, " + host.instance.name + " has " + std::to_string(machine_cores));
    // Data parallel: the gradient all-reduce is a collective over every core, on a rank count the
    // instance's collectives run (driver/runtime/collective_rank_sets.h).
    const std::vector<uint32_t>& ranks = host.instance.collective_rank_counts;
    if (o.cores > 1 && !ranks.empty() && std::find(ranks.begin(), ranks.end(), o.cores) == ranks.end())
        throw UserError(fmt::format("--cores {}: the gradient all-reduce would run over {} ranks, {} runs collectives on {} ranks",
                                    o.cores, o.cores, host.instance.name, fmt::join(ranks, ", ")));
    if (o.nodes > 1 && host.instance.efa.devices == 0)
        throw UserError(fmt::format("--nodes {}: {} has no EFA to join instances (give one that has, such as trn1.32xlarge)",
                                    o.nodes, host.instance.name));
    // As the tutorial's run scripts (GRAD_ACCUM_USTEPS / WORLD_SIZE_JOB): each node accumulates its share.
    if (o.grad_accum % o.nodes != 0)
        throw UserError(fmt::format("--grad-accum {} does not divide among --nodes {} (each node accumulates an equal share)",
                                    o.grad_accum, o.nodes));
    const bool pretrain = o.task == kernels::train::kPretrainTask;
    if (pretrain && !o.weights.empty())
        throw UserError("--weights with --task pretrain: starting pretraining from a checkpoint is not built yet (random weights only)");
    if (pretrain && o.max_predictions > o.seq)
        throw UserError(fmt::format("--max-predictions {} exceeds --seq {}", o.max_predictions, o.seq));
    if (std::find(kBertTrainDtypes.begin(), kBertTrainDtypes.end(), o.dtype) == kBertTrainDtypes.end())
        throw UserError(fmt::format("unknown --dtype '{}' ({})", o.dtype, fmt::join(kBertTrainDtypes, ", ")));
    kernels::train::TrainingProgramOptions p;
    p.task = o.task;
    p.precision = o.dtype == "fp32" ? kernels::device::Precision::Fp32 : kernels::device::Precision::Bf16;
    if (o.stochastic_rounding) p.stochastic_rounding_seed = o.rounding_seed;
    p.dropout = !o.disable_dropout;
    p.step.dropout_seed = uint32_t(o.seed);
    p.step.micro_batch = o.micro_batch;
    if (o.sequences_per_pass) {
        if (o.micro_batch % o.sequences_per_pass != 0)
            throw UserError(fmt::format("--sequences-per-pass {} must divide --micro-batch {}", o.sequences_per_pass, o.micro_batch));
        p.step.pass_batch = o.sequences_per_pass;
        p.step.spill_activations = true;
    }
    if (o.tokens_per_chunk) {
        if (!o.sequences_per_pass) throw UserError("--tokens-per-chunk needs --sequences-per-pass");
        p.step.chunk_tokens = o.tokens_per_chunk;
    }
    p.step.seq = o.seq;
    // The recipe's max_pred_len: 20 at seq 128, 80 at seq 512 (training.md A2.1).
    if (pretrain) p.step.max_predictions = o.max_predictions ? o.max_predictions : std::max(1u, (o.seq * 5 + 16) / 32);
    p.step.grad_accum = o.grad_accum / o.nodes;
    p.step.cores = o.cores;
    p.step.nodes = o.nodes;
    p.step.max_grad_norm = float(o.max_grad_norm);
    p.step.optimizer_states = o.optimizer == "adamw-bf16" ? kernels::device::dtypes_for(p.precision).activation : isa::DType::Fp32;
    p.timing_only = o.timing_only;
    // The model's state must fit the core's share of its device's memory (training.md A2.5).
    const uint64_t core_bytes = host.chip.memory.total_bytes() / host.chip.cores_per_device;
    const std::string core_memory = fmt::format("the {:.0f} GiB of device memory per NeuronCore of {}",
                                                double(core_bytes) / double(uint64_t(1) << 30), host.instance.name);
    try {
        kernels::BertWeights weights;
        if (!o.weights.empty()) {
            weights = load_weights(o.weights);
            p.model_name = o.model.empty() ? checkpoint_name(o.weights) : o.model;
            if (!weights.embeddings) throw UserError("--weights " + o.weights + ": the checkpoint has no embedding tables to train");
            kernels::train::check_training_state_fits(weights.config, p, core_bytes, core_memory);
        } else {
            kernels::BertConfig config = model_config(o.model, &p.model_name);
            if (pretrain) config.num_labels = 2;  // the next-sentence head
            kernels::train::check_training_state_fits(config, p, core_bytes, core_memory);  // before making its weights
            weights = o.timing_only ? kernels::train::shape_only_bert_weights(config, pretrain)
                                    : kernels::random_bert_weights(config, o.seed, true, pretrain);
        }
        isa::Container program = kernels::train::build_training_program(host.chip.core, p, weights);
        program.metadata.emplace_back("instance", host.instance.name);
        if (const fs::path vocab = fs::path(o.weights) / "vocab.txt"; !o.weights.empty() && fs::is_regular_file(vocab))
            program.metadata.emplace_back("vocab", fs::absolute(vocab).lexically_normal().string());
        std::string description = "training " + p.model_name + " (" + std::to_string(weights.config.num_hidden_layers) +
            " layers, hidden " + std::to_string(weights.config.hidden_size) + ") to " + o.task +
            (pretrain ? fmt::format(" ({} masked-LM predictions per sequence)", p.step.max_predictions) : "") +
            ", micro-batch " + std::to_string(o.micro_batch) + " x seq " + std::to_string(o.seq) + ", " +
            (o.nodes > 1 ? fmt::format("{} micro-step(s) per step on each of {} nodes ({} / {}), ", p.step.grad_accum, o.nodes,
                                       o.grad_accum, o.nodes)
                         : std::to_string(o.grad_accum) + " micro-step(s) per step, ") + o.dtype +
            (o.stochastic_rounding ? " with stochastic rounding" : "") +
            (program.metadata_value("dropout") == "off" ? ", no dropout" : ", dropout " + program.metadata_value("dropout")) +
            ", " + program.metadata_value("optimizer") +
            (o.cores > 1 ? fmt::format(", data parallel on {} cores of {} (each its own micro-batches, the gradients "
                                       "all-reduced before the optimizer)", o.cores, host.chip.core.name)
                         : ", on 1 core of " + host.chip.core.name) + (o.timing_only ? ", timing only (no weights)" : "") +
            (program.metadata_value("activations") == "device memory"
                 ? "; activations spilled to device memory, passes of " + program.metadata_value("sequences_per_pass") +
                       " sequence(s)"
                 : "");
        return {std::move(program), std::move(description)};
    } catch (const kernels::InputError& e) {
        throw UserError(e.what());
    } catch (const std::invalid_argument& e) {
        throw UserError(e.what());
    }
}

int build_bert_train(const BertTrainBuildOptions& o) {
    if (std::error_code ec; fs::is_directory(o.output, ec))
        throw UserError("-o " + o.output + ": is a directory, not a file to write the program to");
    const BertTrainBuild build = make_bert_train_build(o);
    isa::write_container_file(o.output, build.program);
    std::cout << "wrote " << o.output << ": " << build.description << "\n";
    return 0;
}

}  // namespace nsim::tools
