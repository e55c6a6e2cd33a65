// The training program neuron-build bert-train writes (train.bin): one optimizer step of
// BertForSequenceClassification on one NeuronCore (training_step.h), with the metadata `neuron-sim
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

struct TrainingProgramOptions {
    std::string model_name = "bert";
    std::string task = "classify";
    device::Precision precision = device::Precision::Bf16;  // fp32 or bf16
    std::optional<uint32_t> stochastic_rounding_seed;      // SR on every fp32 -> bf16 write
    TrainingOptions step;
};

// Whether a container is a training program (and not an inference model or a kernel).
bool is_training_program(const isa::Container& program);

// weights: the model to start from (with embeddings); AdamW's states start at zero. Throws
// std::invalid_argument (one line) for what it cannot build: a precision other than fp32 or bf16,
// a model or shape the kernels do not take, a step that does not fit on-chip memory.
isa::Container build_training_program(const config::NeuronCoreSpec& spec, const TrainingProgramOptions& options,
                                      const BertWeights& weights);

}  // namespace nsim::kernels::train
