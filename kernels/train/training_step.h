// One training step of BertForSequenceClassification as ONE device program on one NeuronCore:
//   forward   training_forward (embedding gathers, the encoder layers, pooler, classifier), keeping
//             what the backward reads
//   loss      cross_entropy: the mean loss and dlogits
//   backward  classifier_head_backward, encoder_layer_backward per layer (last to first), the
//             embedding layernorm's backward and the scatter-adds into the word, position and
//             token-type tables (embedding_backward)
//   update    adamw on every parameter with fp32 m and v, in bert_tensor_slots order
// What it does not do yet: write the updated parameters back over the ones the next step reads (they
// go to output tensors), keep W^T in step with W, accumulate gradients over micro-batches, all-reduce
// between cores, clip, or dropout.
#pragma once

#include "bert/bert_weights.h"
#include "bert/token_batch.h"
#include "train/adamw.h"

namespace nsim::kernels::train {

struct TrainingHyper {
    double lr = 1e-3, weight_decay = 0.01;
    AdamWConstants constants;
    uint32_t step = 1;  // 1-based, for the bias corrections
};

// The program's fp32 output tensors: the loss ([1, 1], the batch mean) and, per parameter
// ([rows, columns] as bert_tensor_slots lists it, vectors as one row), its gradient, the updated
// parameter and AdamW's updated m and v, named by these functions of the parameter's name.
struct TrainingStepOutputs {
    std::string loss = "loss";
    std::vector<std::string> parameters;  // bert_tensor_slots order
};
std::string gradient_output(const std::string& parameter);
std::string parameter_output(const std::string& parameter);
std::string m_output(const std::string& parameter);
std::string v_output(const std::string& parameter);

// weights, m, v: the parameters and AdamW's states before the step (weights with embeddings, erf
// GELU); labels: one class per sequence. Tensors go into `program`, loads over `channel`.
TrainingStepOutputs training_step(KernelContext& ctx, builder::ProgramBuilder& program, builder::DmaChannel& channel,
                                const BertWeights& weights, const BertWeights& m, const BertWeights& v,
                                const TokenBatch& tokens, const std::vector<int32_t>& labels, const TrainingHyper& hyper);

}  // namespace nsim::kernels::train
