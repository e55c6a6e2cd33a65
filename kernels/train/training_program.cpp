#include "train/training_program.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <stdexcept>

#include "builder/program_builder.h"
#include "isa/region_metadata.h"
#include "device/attention_kernel.h"
#include "train/activation_spill.h"
#include "train/dropout.h"

namespace nsim::kernels::train {
namespace {

// Weight slots of 4 KiB per partition, as the inference program's when SBUF has room (DMABW: >= 4 KiB
// per partition to saturate the DMA engines; narrower slots make many small transfers that pay the
// fixed DMA cost).
constexpr uint64_t kWeightSlotBytes = 4096;

// AdamW's first states: zeros (none for a timing-only program).
BertWeights zeros_like(const BertWeights& w) {
    BertWeights z = w;
    for (const BertTensorSlot& slot : bert_tensor_slots(z, true)) std::fill(slot.tensor->values.begin(), slot.tensor->values.end(), 0.0f);
    return z;
}

}  // namespace

TrainingStateBytes training_state_bytes(const BertConfig& c, const TrainingProgramOptions& o) {
    const uint64_t H = uint64_t(c.hidden_size), I = uint64_t(c.intermediate_size), L = uint64_t(c.num_hidden_layers);
    const uint64_t labels = uint64_t(c.num_labels);
    const uint64_t tables = uint64_t(c.vocab_size + c.max_position_embeddings + c.type_vocab_size) * H + 2 * H;
    const uint64_t linear_weights = L * (4 * H * H + 2 * H * I) + H * H + labels * H;
    const uint64_t biases_and_norms = L * (4 * H + I + H + 4 * H) + H + labels;
    // Pretraining: the masked-LM transform (dense, LayerNorm), the decoder bias, and the word table's
    // W^T that the tied decoder streams.
    const bool pretrain = o.task == kPretrainTask;
    const uint64_t head_weights = pretrain ? H * H : 0;
    const uint64_t head_vectors = pretrain ? 3 * H + uint64_t(c.vocab_size) : 0;
    const uint64_t transposed = linear_weights + head_weights + (pretrain ? uint64_t(c.vocab_size) * H : 0);
    const uint64_t parameters = tables + linear_weights + biases_and_norms + head_weights + head_vectors;
    const uint64_t activation = isa::size_in_bytes(device::dtypes_for(o.precision).activation);
    TrainingStateBytes b;
    b.weights = (parameters + transposed) * activation;
    b.gradients = parameters * 4;
    b.optimizer_states = 2 * parameters * isa::size_in_bytes(o.step.optimizer_states);
    return b;
}

TrainingStateBytes training_state_bytes(const isa::Container& program) {
    auto ends_with = [](const std::string& s, const std::string& tail) {
        return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
    };
    TrainingStateBytes b;
    for (const isa::TensorInfo& t : program.tensors) {
        const bool trained = t.role == isa::TensorRole::State || t.role == isa::TensorRole::Scratch;
        if (t.location != isa::TensorLocation::Device || !trained || is_spilled_activation(t.name) ||
            t.name == kDropoutGeneratorTensor || is_gradient_bucket(t.name))
            continue;
        if (ends_with(t.name, gradient_tensor(""))) b.gradients += t.size_bytes();
        else if (ends_with(t.name, m_tensor("")) || ends_with(t.name, v_tensor(""))) b.optimizer_states += t.size_bytes();
        else b.weights += t.size_bytes();
    }
    return b;
}

void check_training_state_fits(const BertConfig& c, const TrainingProgramOptions& o, uint64_t core_bytes,
                               const std::string& where) {
    const TrainingStateBytes b = training_state_bytes(c, o);
    if (b.total() <= core_bytes) return;
    constexpr double kGiB = double(uint64_t(1) << 30);
    throw std::invalid_argument(fmt::format(
        "{} does not fit in device memory: weights {:.2f} GiB + gradients {:.2f} GiB + optimizer states {:.2f} GiB = "
        "{:.2f} GiB, more than {}",
        o.model_name, b.weights / kGiB, b.gradients / kGiB, b.optimizer_states / kGiB, b.total() / kGiB, where));
}

BertWeights shape_only_bert_weights(const BertConfig& config, bool pretraining) {
    BertWeights w;
    w.config = config;
    w.embeddings.emplace();
    if (pretraining) w.pretraining.emplace();
    w.layers.resize(size_t(config.num_hidden_layers));
    for (const BertTensorSlot& slot : bert_tensor_slots(w, true)) *slot.tensor = Tensor(slot.shape, {});
    return w;
}

bool is_training_program(const isa::Container& program) { return program.metadata_value("kind") == kTrainingProgramKind; }

std::vector<std::string> step_phase_marks(const isa::Container& program) {
    std::vector<std::string> names;
    std::istringstream words(program.metadata_value(kStepPhasesMetadata));
    for (std::string name; words >> name;) names.push_back(name);
    return names;
}

namespace {
isa::Container build_step_program(const config::NeuronCoreSpec& spec, const TrainingProgramOptions& o,
                                  const TrainingOptions& step, const BertWeights& start, const BertWeights& zeros);
}  // namespace

isa::Container data_parallel_program(isa::Container program, uint32_t cores) {
    if (cores <= 1) return program;
    program.metadata.emplace_back("cores", std::to_string(cores));
    program.metadata.emplace_back(isa::kDeviceRegionMetadata, isa::kRegionPerCore);
    const size_t streams = program.streams.size();
    for (uint32_t core = 1; core < cores; ++core)
        for (size_t s = 0; s < streams; ++s) {
            if (program.streams[s].core != 0) throw std::logic_error("data_parallel_program: a stream of a core other than 0");
            isa::InstructionStream copy = program.streams[s];  // shares the instructions
            copy.core = core;
            program.streams.push_back(std::move(copy));
        }
    program.cores_needed = cores;
    program.canonicalize();
    return program;
}

isa::Container build_training_program(const config::NeuronCoreSpec& spec, const TrainingProgramOptions& o,
                                      const BertWeights& weights) {
    if (o.precision != device::Precision::Fp32 && o.precision != device::Precision::Bf16)
        throw std::invalid_argument("training programs are fp32 or bf16 (the matmuls and activations in one dtype)");
    if (o.task != kClassifyTask && o.task != kPretrainTask)
        throw std::invalid_argument("task '" + o.task + "': the tasks are classify and pretrain");
    if ((o.task == kPretrainTask) != weights.pretraining.has_value())
        throw std::invalid_argument(o.task == kPretrainTask ? "pretraining needs weights with the pretraining heads"
                                                            : "weights with pretraining heads are for --task pretrain");
    const BertConfig& c = weights.config;
    if (!o.timing_only && (!weights.embeddings || weights.embeddings->word.values.empty()))
        throw std::invalid_argument("the training program needs the weights' values (or timing_only)");
    const uint32_t tile_rows = device::partition_tile_rows(spec);
    if (c.head_size() <= 0 || tile_rows % c.head_size() != 0)
        throw std::invalid_argument(fmt::format("head size {} must divide {}, the partition tile of {}", c.head_size(),
                                                tile_rows, spec.name));
    const uint32_t pass_tokens = (o.step.pass_batch ? o.step.pass_batch : o.step.micro_batch) * o.step.seq;
    if (o.step.chunk_tokens && (o.step.chunk_tokens % tile_rows != 0 || pass_tokens % o.step.chunk_tokens != 0))
        throw std::invalid_argument(fmt::format("tokens per chunk {} must be a multiple of {}, the partition tile of {}, "
                                                "that divides a pass's {} tokens",
                                                o.step.chunk_tokens, tile_rows, spec.name, pass_tokens));
    if (o.step.seq > device::widest_attention_row(spec))
        throw std::invalid_argument(fmt::format("seq {} exceeds the {} keys one attention matmul of {} takes", o.step.seq,
                                                device::widest_attention_row(spec), spec.name));
    // A timing-only program has no contents, whatever values `weights` holds.
    const BertWeights shapes = o.timing_only ? shape_only_bert_weights(c, weights.pretraining.has_value()) : BertWeights{};
    const BertWeights& start = o.timing_only ? shapes : weights;
    const BertWeights zeros = zeros_like(start);
    // As the options say when they fit; else (unless they fix the pass) with the activations in
    // device memory and the micro-batch in the largest passes that fit, as build_bert_program cuts an
    // inference batch SBUF cannot hold.
    TrainingOptions given = o.step;
    if (o.dropout) {
        given.hidden_dropout = float(c.hidden_dropout_prob);
        given.attention_dropout = float(c.attention_probs_dropout_prob);
    }
    std::vector<TrainingOptions> attempts = {given};
    if (o.step.pass_batch == 0)
        for (uint32_t pass = o.step.micro_batch; pass >= 1; --pass) {
            if (o.step.micro_batch % pass != 0) continue;
            TrainingOptions spilled = given;
            spilled.spill_activations = true;
            spilled.pass_batch = pass;
            if (!(o.step.spill_activations && pass == o.step.micro_batch)) attempts.push_back(spilled);
            // Last, one sequence a pass with its FFN in chunks of one partition tile of tokens (it
            // streams the FFN's weights once per chunk: only when nothing else fits).
            if (pass == 1 && o.step.seq > tile_rows && o.step.seq % tile_rows == 0) {
                spilled.chunk_tokens = tile_rows;
                attempts.push_back(spilled);
            }
        }
    std::string refusal;
    for (const TrainingOptions& step : attempts) {
        try {
            return build_step_program(spec, o, step, start, zeros);
        } catch (const std::length_error& e) {
            refusal = e.what();
        }
    }
    const std::string how = o.step.pass_batch ? fmt::format("in passes of {} sequence(s)", o.step.pass_batch)
                                              : std::string("even one sequence at a time");
    throw std::invalid_argument(fmt::format("{} with micro-batch {} x seq {} does not fit on one {} core, {} with its "
                                            "activations in device memory: {}",
                                            o.model_name, o.step.micro_batch, o.step.seq, spec.name, how, refusal));
}

namespace {

isa::Container build_step_program(const config::NeuronCoreSpec& spec, const TrainingProgramOptions& o,
                                  const TrainingOptions& step, const BertWeights& start, const BertWeights& zeros) {
    const BertConfig& c = start.config;
    const device::DtypePlan dtypes = device::dtypes_for(o.precision);
    builder::ProgramBuilder program(spec, 1);
    if (o.stochastic_rounding_seed) program.set_stochastic_rounding(*o.stochastic_rounding_seed);
    const uint32_t width = std::max(spec.tensor.max_moving_free, spec.tensor.max_stationary_free);
    const uint32_t slot_columns =
        std::max<uint32_t>(1, uint32_t(kWeightSlotBytes / isa::size_in_bytes(dtypes.matmul)) / width) * width;
    const TrainingProgram built = training_step(program, dtypes, slot_columns, start, zeros, zeros, step);
    program.set_metadata("kind", kTrainingProgramKind);
    program.set_metadata("task", o.task);
    program.set_metadata("model", o.model_name);
    program.set_metadata("dtype", std::string(device::name_of(o.precision)));
    program.set_metadata("micro_batch", std::to_string(o.step.micro_batch));
    program.set_metadata("seq_len", std::to_string(o.step.seq));
    program.set_metadata("grad_accum", std::to_string(o.step.grad_accum));
    program.set_metadata("sequences_per_pass", std::to_string(step.pass_batch ? step.pass_batch : step.micro_batch));
    program.set_metadata("activations", step.spill_activations ? "device memory" : "on chip");
    if (step.cores <= 1) program.set_metadata("cores", "1");
    // Per node: micro_batch x grad_accum x cores sequences per step (grad_accum is each node's share).
    if (step.nodes > 1) program.set_metadata("nodes", std::to_string(step.nodes));
    program.set_metadata("max_grad_norm", fmt::format("{}", o.step.max_grad_norm));
    program.set_metadata("dropout", step.hidden_dropout > 0 || step.attention_dropout > 0
                                        ? fmt::format("hidden {} attention {} seed {}", step.hidden_dropout,
                                                      step.attention_dropout, step.dropout_seed)
                                        : std::string("off"));
    program.set_metadata("optimizer", o.step.optimizer_states == isa::DType::Fp32 ? "adamw (fp32 states)"
                                                                                   : "adamw (all " + std::string(isa::name_of(o.step.optimizer_states)) + ")");
    program.set_metadata("adam_beta1", fmt::format("{}", o.step.constants.beta1));
    program.set_metadata("adam_beta2", fmt::format("{}", o.step.constants.beta2));
    program.set_metadata("layers", std::to_string(c.num_hidden_layers));
    program.set_metadata("hidden_size", std::to_string(c.hidden_size));
    program.set_metadata("intermediate_size", std::to_string(c.intermediate_size));
    program.set_metadata("num_labels", std::to_string(c.num_labels));
    program.set_metadata("vocab_size", std::to_string(c.vocab_size));
    if (start.pretraining) program.set_metadata("max_predictions", std::to_string(step.max_predictions));
    program.set_metadata("weights", o.timing_only ? "none (timing only)" : "included");
    std::string phases;
    for (const std::string& name : built.phase_marks) phases += (phases.empty() ? "" : " ") + name;
    program.set_metadata(kStepPhasesMetadata, phases);
    // What a checkpoint of the trained parameters needs (neuron-sim train --save).
    program.set_metadata("bert_config", bert_config_to_json(c).dump());
    return data_parallel_program(program.finish(), step.cores);
}

}  // namespace

}  // namespace nsim::kernels::train
