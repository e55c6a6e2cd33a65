// `neuron-build bert`: a BERT sequence-classification program (bert.bin) for the NeuronCores of one
// instance type, from a preset or config.json, with seeded random weights or a checkpoint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bert/bert_weights.h"
#include "isa/container.h"

namespace nsim::tools {

// The --dtype values `neuron-build bert` takes (kernels/device/precision.h), listed once: its option
// check, its error and `neuron-sim sweep`'s check of a grid's dtype all use this list.
inline const std::vector<std::string> kBertDtypes = {"fp32", "bf16", "fp16", "mixed", "mixed-bf16"};

struct BertBuildOptions {
    std::string model;            // bert-base | bert-large | path to a config.json
    uint32_t seq = 128;
    uint32_t batch = 1;
    std::string dtype = "mixed";
    uint32_t cores = 1;
    std::string parallel = "data";
    std::string weights;          // checkpoint directory; empty: random weights
    uint64_t seed = 1;
    std::string embedding = "host";
    bool timing_only = false;     // no tensor contents: for timing runs only
    std::string instance;         // the target machine (its NeuronCore generation, cores, memory)
    std::vector<std::string> config_files;
    std::string output;
};

// The program of `options`, made in memory (nothing written; `output` is not used): what build_bert
// writes, and what `neuron-sim sweep` runs. UserError (one line) for what the user can fix.
struct BertBuild {
    isa::Container program;
    std::string description;   // "bert-base, 12 layers, batch 8, ..." for the "wrote FILE: ..." line
    // Built with weights and the embedding on the host: the model whose embedding tables the host
    // runs, written next to the program file (kernels/bert/embedding_tables_file.h).
    std::optional<kernels::BertWeights> host_embedding;
};
BertBuild make_bert_build(const BertBuildOptions& options);

// make_bert_build, then the program (and its host embedding tables) written to `options.output`.
int build_bert(const BertBuildOptions& options);

// The model of --model: a preset name or a config.json (`name` gets the preset or the file's stem).
// UserError when it is neither.
kernels::BertConfig model_config(const std::string& model, std::string* name);
// The checkpoint of --weights DIR (Hugging Face, or bert-tiny-sst2-fhe's own format). UserError when
// DIR is not a directory.
kernels::BertWeights load_weights(const std::string& dir);
// The model's name from its checkpoint directory: its last component ("my-bert-mrpc/" too).
std::string checkpoint_name(const std::string& dir);

}  // namespace nsim::tools
