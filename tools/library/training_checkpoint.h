// The model a training program holds on the device after its steps, read back through the driver
// from the program's parameter tensors (the Scratch tensors it updates in place, named as Hugging
// Face names them) and saved as a checkpoint directory (config.json + model.safetensors, fp32) that
// `neuron-build bert --weights DIR` loads - `neuron-sim train --save DIR`. The vocabulary the run
// tokenized with is copied next to them as vocab.txt, so the checkpoint classifies with it.
#pragma once

#include <filesystem>

#include "bert/bert_weights.h"
#include "library/program_session.h"

namespace nsim::library {

// Error (one line) when the program records no model config (an older training program).
kernels::BertWeights trained_weights(Session& session);

// Error when DIR cannot be written.
void save_training_checkpoint(Session& session, const std::filesystem::path& dir, const std::filesystem::path& vocab);

}  // namespace nsim::library
