// One optimizer step of BertForSequenceClassification (or, given weights with pretraining heads,
// BertForPreTraining: loss = masked-LM + next-sentence, masked_lm_head.h) on one NeuronCore, as the
// graphs torch-neuronx compiles it into (training.md A2.2: the first micro-step, the accumulating
// micro-step, the optimizer step; isa::Container::graphs), which share the program's tensors:
//   "first micro-step"  executed once per step, and "micro-step" grad_accum - 1 times (not built for
//               grad_accum 1): one micro-batch, written by the host before each execution, in passes
//               of pass_batch sequences (each reusing the memory of the pass before)
//     forward   training_forward, keeping what the backward reads (on chip, or spilled to device
//               memory layer by layer: ActivationSpill)
//     loss      cross_entropy: the micro-batch's mean loss into the loss output
//     backward  classifier_head_backward, encoder_layer_backward per layer (last to first), the
//               embedding layernorm's backward and the scatter-adds into the word, position and
//               token-type tables (embedding_backward)
//     accumulate  each parameter's gradient into its fp32 sum in device memory, a block at a time as
//               the backward makes it (GradientSums): the first micro-step's first pass stores it (the
//               sums need no zeroing: torch's zero_grad(set_to_none) makes the first graph differ the
//               same way), every other pass adds into it. With the activations spilled, the encoder
//               layers' weight and bias gradients and the embedding tables' are made once per
//               micro-step after its passes, over all its tokens, from each pass's spilled inputs and
//               output gradients (DeferredWeightGradients), so each is added into its sum once per
//               micro-step rather than once per pass
//   "all-reduce" executed once per step on several data-parallel cores (options.cores > 1): the sums
//               all-reduced over the cores in buckets (gradient_all_reduce.h)
//   "reduce-scatter", "all-gather"  instead, on several nodes (options.nodes > 1, with several cores):
//               the all-reduce's intra-node phases, the inter-node one between them run by the runtime
//   "optimizer" executed once per step: optimizer_step: average, clip, AdamW, and the parameters,
//               states and W^T written back over the ones the next execution reads.
// Each graph loads what it reads on chip (constants, bias and layernorm rows) at each execution:
// an execution starts from zero semaphores and assumes nothing of on-chip memory.
// The parameters and AdamW's states are State tensors named as Hugging Face names the parameter
// (m and v: "/adam_m", "/adam_v" after it): the runtime loads them once, each execution updates them,
// and they can be read back (a checkpoint) at any time. On several cores each core runs the same
// graphs on its own copy of every tensor (build_training_program).
// The graphs mark where each phase ends (CoreBuilder::mark, label = the mark's number, counted
// across the graphs), so that an execution's time splits into its phases
// (TrainingProgram::phase_marks): the inputs and on-chip parameter rows a micro-step loads count as
// forward, each table chunk's scatter-add as backward and its addition into the sums as
// accumulation; where engines overlap two phases, the later mark takes the overlap. The other
// gradients are added into their sums while the backward runs (block by block, overlapping it), so
// their accumulation counts as backward, as do the deferred weight gradients made after the passes
// (their matmuls and additions interleave).
#pragma once

#include "bert/bert_weights.h"
#include "bert/token_batch.h"
#include "train/adamw.h"
#include "train/gradient_all_reduce.h"

namespace nsim::kernels::train {

struct TrainingOptions {
    uint32_t micro_batch = 1, seq = 0;  // sequences and tokens of one micro-batch
    uint32_t grad_accum = 1;            // micro-steps per optimizer step
    float max_grad_norm = 0;            // clip_grad_norm_'s max_norm; 0: no clipping
    AdamWConstants constants;
    isa::DType optimizer_states = isa::DType::Fp32;  // or the parameters' dtype (all-BF16 AdamW)
    // How much goes through on-chip memory at once: rows of an embedding table's gradient, and bytes
    // per partition of one chunk of a parameter in the optimizer (tests make them small).
    uint32_t table_chunk_rows = 1024;
    uint64_t optimizer_chunk_bytes = 48 * 1024;
    // Sequences per pass (0: the whole micro-batch): a micro-batch whose activations SBUF cannot hold
    // runs in passes, each adding its share of the micro-batch's mean gradient into the sums.
    uint32_t pass_batch = 0;
    // The activations the backward reads go to device memory layer by layer (ActivationSpill)
    // instead of staying on chip.
    bool spill_activations = false;
    // Tokens of a pass whose feed-forward block runs at once (0: the pass's; else a multiple of the
    // partition tile that divides the pass's tokens): with a spill, each chunk's FFN activations go to
    // device memory as soon as they are made, so the FFN's 4096-wide tensors take a chunk's SBUF, not
    // a pass's (a pass of one 512-token sequence, phase 2).
    uint32_t chunk_tokens = 0;
    // Pretraining (weights with pretraining heads): masked-LM predictions per sequence (the recipe's
    // max_pred_len, training.md A2.1: 20 at seq 128), and the vocabulary columns the decoder's logits
    // go through at once (masked_lm_head.h).
    uint32_t max_predictions = 0;
    uint32_t vocabulary_chunk = 1024;
    // Dropout (train/dropout.h: HF BertModel's places) with these probabilities; 0: none. The
    // generator starts from dropout_seed and advances every execution.
    float hidden_dropout = 0, attention_dropout = 0;
    uint32_t dropout_seed = 0;
    // Data-parallel cores: above 1, an "all-reduce" graph between the micro-steps and the optimizer
    // (gradient_all_reduce.h) over buckets of this many bytes of gradient sums, and the optimizer
    // averages over the micro-steps of every core.
    uint32_t cores = 1;
    // Instances the step runs on, each on `cores` cores with grad_accum micro-steps of its own: above 1,
    // the all-reduce is split into a "reduce-scatter" and an "all-gather" graph, between which the
    // runtime all-reduces the shards across the nodes (gradient_reduce_scatter_all_gather), and the
    // optimizer averages over the micro-steps of every core of every node.
    uint32_t nodes = 1;
    uint64_t gradient_bucket_bytes = kDefaultGradientBucketBytes;
};

// The graphs of a training program, in the order an optimizer step executes them.
inline constexpr const char* kFirstMicroStepGraph = "first micro-step";
inline constexpr const char* kMicroStepGraph = "micro-step";
inline constexpr const char* kOptimizerGraph = "optimizer";  // after "all-reduce" on several cores

// The tensors the host writes before each micro-step execution: int32 [micro_batch, seq] ids, token
// types and attention mask and the fp32 [micro_batch, 1] labels (pretraining: the next-sentence
// label, 0: is next, 1: random); pretraining, int32 [micro_batch, max_predictions] positions (in the
// sequence) and token ids of the masked-LM predictions (-1: an unused slot), and their fp32 weights
// (each one's share of the micro-step's masked-LM loss: 1 / the micro-batch's predictions, 0 for an
// unused slot). What it reads after: the micro-step's loss. Before the optimizer's execution: the
// step's AdamW scalars (fp32 [1, kAdamWScalars], adamw_step_scalars); after it, the gradient norm.
inline constexpr const char* kInputIdsInput = "input_ids";
inline constexpr const char* kTokenTypeIdsInput = "token_type_ids";
inline constexpr const char* kAttentionMaskInput = "attention_mask";
inline constexpr const char* kLabelsInput = "labels";
inline constexpr const char* kMaskedLmPositionsInput = "masked_lm_positions";
inline constexpr const char* kMaskedLmLabelsInput = "masked_lm_labels";
inline constexpr const char* kMaskedLmWeightsInput = "masked_lm_weights";
inline constexpr const char* kAdamWScalarsInput = "adamw scalars";
inline constexpr const char* kLossOutput = "loss";  // fp32 [1, 1]: the micro-step's (pretraining: MLM + NSP)
inline constexpr const char* kGradNormOutput = "grad norm";   // fp32 [1, 1], when clipping
// A parameter's gradient summed over the step's micro-steps (fp32 Scratch, not averaged or clipped),
// and its AdamW states (Scratch, in the states' dtype).
std::string gradient_tensor(const std::string& parameter);
std::string m_tensor(const std::string& parameter);
std::string v_tensor(const std::string& parameter);

// The phases of a step, in the order a report lists them.
inline constexpr const char* kForwardPhase = "forward";
inline constexpr const char* kBackwardPhase = "backward";
inline constexpr const char* kAccumulationPhase = "accumulation";
inline constexpr const char* kAllReducePhase = "all-reduce";
inline constexpr const char* kOptimizerPhase = "optimizer";
inline constexpr const char* kStepPhases[] = {kForwardPhase, kBackwardPhase, kAccumulationPhase, kAllReducePhase,
                                              kOptimizerPhase};

struct TrainingProgram {
    std::vector<std::string> parameters;  // bert_tensor_slots order: each is a tensor of the program
    std::vector<std::string> phase_marks; // by mark label: the phase that ends at that mark
};

// The step's transfers of gradient sums, spilled activations and optimizer tensors are spread over
// the step's channel (queue class 0) and kTensorChannels - 1 more channels on queue classes
// kFirstTensorQueueClass on (class 0 and the weight ring's 2..4 are the step's own), each tensor's on
// one of them (TensorChannels).
inline constexpr uint32_t kTensorChannels = 4, kFirstTensorQueueClass = 5;

// weights, m, v: the parameters and AdamW's states to start from (weights with embeddings, erf
// GELU). The graphs go into `program` (ProgramBuilder::begin_graph: its core 0, which must have
// emitted nothing yet), each with a weight ring of slots `weight_slot_columns` wide. std::invalid_argument
// for a model or options the program cannot train.
TrainingProgram training_step(builder::ProgramBuilder& program, const device::DtypePlan& dtypes,
                              uint32_t weight_slot_columns, const BertWeights& weights, const BertWeights& m,
                              const BertWeights& v, const TrainingOptions& options);

}  // namespace nsim::kernels::train
