// The whole BERT-for-sequence-classification program for one NeuronCore generation, built from the
// hand-scheduled kernels: embedding (host or device), per layer Q/K/V projections, attention, output
// projection + residual + layernorm, FFN with GELU + residual + layernorm, then pooler (tanh) and
// classifier. Data parallel: every core runs the whole model on its own batch (one copy of the
// weights in device memory, read by every core). Pipeline: the layers are split across the cores in
// order and each core sends its residual stream (token- and feature-major) to the next one.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bert/bert_weights.h"
#include "config/host_spec.h"
#include "device/precision.h"
#include "isa/container.h"

namespace nsim::kernels::device {

enum class Parallelism { Data, Pipeline };
enum class EmbeddingPlacement { Host, Device };

struct BertProgramOptions {
    BertConfig config;
    std::string model_name = "bert";
    uint32_t seq = 128;
    uint32_t batch = 1;          // sequences per model copy (per core in data parallel)
    uint32_t cores = 1;
    Precision precision = Precision::Mixed;
    Parallelism parallel = Parallelism::Data;
    EmbeddingPlacement embedding = EmbeddingPlacement::Host;
    uint64_t device_memory_bytes = 0;  // room for the program's device region; 0: not checked
    // Sequences per pass at most (0: as many as SBUF holds). A batch SBUF cannot hold runs in passes
    // anyway; this forces them (tests check passes on models small enough to need none).
    uint32_t max_pass_batch = 0;
};

// A request the hardware or the kernels cannot serve (does not fit SBUF or device memory, a head
// size the attention kernel does not tile, ...). what() is one line.
class BuildError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Tensor names the runner uses.
inline constexpr const char* kInputIds = "input_ids";            // int32 [rows, seq]
inline constexpr const char* kTokenTypeIds = "token_type_ids";   // int32 [rows, seq]
inline constexpr const char* kAttentionMask = "attention_mask";  // int32 [rows, seq]
inline constexpr const char* kEmbeddings = "embeddings";         // fp32 [rows * seq, hidden] (host embedding)
inline constexpr const char* kLogits = "logits";                 // fp32 [rows, labels]
inline constexpr const char* kEncoderOutput = "encoder_output";  // fp32 [rows * seq, hidden]

// Sequences one execution takes: batch x cores in data parallel, batch in pipeline.
uint32_t total_sequences(const BertProgramOptions& options);

// Where each kernel's tensor-engine work sits in a core's PE stream: instructions [first, end).
// For measuring the tensor engine over the matmul phases (a trace slice carries its instruction).
struct KernelPhase {
    uint32_t core = 0;
    std::string kernel;  // "query", "key", "value", "attention", "attention_output", "intermediate", "output", ...
    uint32_t layer = 0;
    size_t first = 0, end = 0;
    bool dense = false;  // one of the fully-connected layers (weights streamed, matmuls back to back)
};

// `weights` null: a timing-only program (tensors without contents). Throws BuildError. `phases`
// (optional) receives the kernel phases of every core.
isa::Container build_bert_program(const config::NeuronCoreSpec& spec, const BertProgramOptions& options,
                                  const BertWeights* weights, std::vector<KernelPhase>* phases = nullptr);

}  // namespace nsim::kernels::device
