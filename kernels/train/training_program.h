// The training program neuron-build bert-train writes (train.bin): one optimizer step of
// BertForSequenceClassification (task classify) or BertForPreTraining (task pretrain) on one NeuronCore,
// as its micro-step and optimizer graphs (training_step.h), with the metadata `neuron-sim
// train` reads to feed it - what kind of program it is, the model's shape, the micro-batch, the
// accumulation, the precision and optimizer. Built like the inference program: its own DMA channels,
// a weight ring and the PSUM banks (kernels/device).
#pragma once

#include <optional>

#include "bert/bert_weights.h"
#include "config/host_spec.h"
#include "device/precision.h"
#include "isa/container.h"
#include "train/training_step.h"

namespace nsim::kernels::train {

// The metadata value of "kind" that marks a training program.
inline constexpr const char* kTrainingProgramKind = "bert-train";
// The tasks (metadata "task"): fine-tuning for sequence classification, and pretraining (masked LM +
// next sentence; metadata "max_predictions": masked-LM slots per sequence).
inline constexpr const char* kClassifyTask = "classify";
inline constexpr const char* kPretrainTask = "pretrain";

struct TrainingProgramOptions {
    std::string model_name = "bert";
    std::string task = kClassifyTask;  // or kPretrainTask: the weights have pretraining heads
    device::Precision precision = device::Precision::Bf16;  // fp32 or bf16
    std::optional<uint32_t> stochastic_rounding_seed;      // SR on every fp32 -> bf16 write
    TrainingOptions step;
    // Dropout with the model config's hidden_dropout_prob and attention_probs_dropout_prob (over
    // step's probabilities), the generator seeded with step.dropout_seed; false: step's as they are
    // (neuron-build bert-train --disable-dropout, the script's --disable_dropout).
    bool dropout = true;
    bool timing_only = false;  // no tensor contents (weights from shape_only_bert_weights)
};

// The model's tensors with their shapes and no values (with embeddings, and with `pretraining` the
// pretraining heads): what a timing-only program is built from, without making (or holding) the weights.
BertWeights shape_only_bert_weights(const BertConfig& config, bool pretraining = false);

// Whether a container is a training program (and not an inference model or a kernel).
bool is_training_program(const isa::Container& program);

// The metadata that names, by mark label, the phase each of the step's marks ends (space-separated),
// and its value read back (empty for a program without marks).
inline constexpr const char* kStepPhasesMetadata = "step_phases";
std::vector<std::string> step_phase_marks(const isa::Container& program);

// What a training program of `config` keeps in device memory, by kind, counted from the config
// before any weight exists: each parameter in the activation dtype plus the linear weights' W^T
// (weights; pretraining: the masked-LM head's and the word table's W^T for the tied decoder too), an
// fp32 sum per parameter (gradients), m and v in the states' dtype (optimizer states).
// Inputs, outputs and constants come on top (small next to these for a BERT).
struct TrainingStateBytes {
    uint64_t weights = 0, gradients = 0, optimizer_states = 0;
    uint64_t total() const { return weights + gradients + optimizer_states; }
};
TrainingStateBytes training_state_bytes(const BertConfig& config, const TrainingProgramOptions& options);
// The same, from the device tensors a built program has (its Scratch tensors by name; spilled
// activations and the dropout generator's state are not the model's).
TrainingStateBytes training_state_bytes(const isa::Container& program);

// std::invalid_argument (one line naming what does not fit) when that state exceeds `core_bytes`,
// the device memory of one core (`where` names it: "trn1.2xlarge's 16 GiB per NeuronCore").
void check_training_state_fits(const BertConfig& config, const TrainingProgramOptions& options, uint64_t core_bytes,
                               const std::string& where);

// A one-core training step program (training_step with options.cores = `cores`) on `cores`
// data-parallel cores: every core runs core 0's streams (the instructions shared), each on its own
// copy of the device region (isa::kDeviceRegionMetadata), as torch-neuronx loads the step's graphs
// once per rank; metadata "cores" says how many. Unchanged for one core.
isa::Container data_parallel_program(isa::Container program, uint32_t cores);

// On options.step.cores cores: data_parallel_program.
// weights: the model to start from (with embeddings); AdamW's states start at zero. A timing-only
// program (options.timing_only) is built from shape_only_bert_weights: its tensors have no contents,
// its metadata says "weights: none (timing only)", and it runs for timing only. Throws
// std::invalid_argument (one line) for what it cannot build: a precision other than fp32 or bf16,
// a model or shape the kernels do not take, a step that does not fit on-chip memory.
isa::Container build_training_program(const config::NeuronCoreSpec& spec, const TrainingProgramOptions& options,
                                      const BertWeights& weights);

}  // namespace nsim::kernels::train
