// `neuron-build bert-train`: a training program (train.bin) for BertForSequenceClassification or
// BertForPreTraining - one
// optimizer step of micro-steps, gradient accumulation, clipping and AdamW per execution
// (kernels/train/training_program.h) - from a preset, a config.json or a checkpoint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/container.h"

namespace nsim::tools {

// What `neuron-build bert-train` takes for --task and --dtype, listed once for its option checks, its
// errors and `neuron-sim sweep`'s check of a grid's task and dtype.
inline const std::vector<std::string> kBertTrainTasks = {"classify", "pretrain"};
inline const std::vector<std::string> kBertTrainDtypes = {"bf16", "fp32"};

struct BertTrainBuildOptions {
    std::string task = "classify";    // classify | pretrain (masked LM + next sentence)
    std::string model;                // bert-base | bert-large | config.json
    uint32_t seq = 128;
    uint32_t max_predictions = 0;     // pretrain: masked-LM slots per sequence; 0: seq * 5/32
    uint32_t micro_batch = 8;
    uint32_t sequences_per_pass = 0;  // 0: the micro-batch, or the largest pass that fits
    uint32_t tokens_per_chunk = 0;    // 0: the pass's tokens at once (TrainingOptions::chunk_tokens)
    uint32_t grad_accum = 1;
    uint32_t cores = 1;
    uint32_t nodes = 1;               // instances; grad_accum is divided among them (the global batch kept)
    std::string dtype = "bf16";       // bf16 | fp32
    bool stochastic_rounding = false;
    uint32_t rounding_seed = 0;       // NEURON_RT_STOCHASTIC_ROUNDING_SEED's default
    bool disable_dropout = false;     // the script's --disable_dropout
    std::string optimizer = "adamw";  // adamw (fp32 states) | adamw-bf16 (all-BF16, SDK 2.3)
    double max_grad_norm = 1.0;       // 0: no clipping
    std::string weights;              // checkpoint directory; empty: random weights
    uint64_t seed = 1;
    bool timing_only = false;         // no tensor contents: for timing runs only
    std::string instance;
    std::vector<std::string> config_files;
    std::string output;
};

// The program of `options`, made in memory (nothing written; `output` is not used): what
// build_bert_train writes, and what `neuron-sim sweep` runs. UserError (one line) for what the user can fix.
struct BertTrainBuild {
    isa::Container program;
    std::string description;   // "training bert-base (12 layers, ...)" for the "wrote FILE: ..." line
};
BertTrainBuild make_bert_train_build(const BertTrainBuildOptions& options);

// make_bert_train_build, then the program written to `options.output`.
int build_bert_train(const BertTrainBuildOptions& options);

}  // namespace nsim::tools
