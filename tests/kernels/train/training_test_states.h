// What the training-step tests share: every tensor of a model rounded to a dtype, and AdamW states
// of an earlier step.
#pragma once

#include <cmath>
#include <functional>

#include "bert/random_weights.h"
#include "kernel_harness.h"
#include "train/training_step.h"

namespace nsim::kernels::testing {

// The training-step tests' shape: micro-batches of two sequences of 16 tokens, two of them a step,
// on one trn1.2xlarge core.
constexpr uint32_t kBatch = 2, kSeq = 16, kAccum = 2;
constexpr const char* kInstance = "trn1.2xlarge";

// Every tensor of `w` as stored in `dtype`.
inline void round_all(BertWeights& w, isa::DType dtype) {
    for (const BertTensorSlot& slot : bert_tensor_slots(w, true)) *slot.tensor = rounded(*slot.tensor, dtype);
}

// AdamW states of an earlier step, shaped like a model of `c` (with pretraining heads when asked):
// m ~ N(0, 1e-3), v = (1e-3 + |N(0, 1e-3)|)^2 - away from zero, as a running mean of squared
// gradients is, so m / sqrt(v) stays O(1) as in training (near v = 0 the update would amplify any
// difference in the gradient without bound).
inline BertWeights adam_states(const BertConfig& c, bool second_moment, isa::DType dtype, bool pretraining = false) {
    BertWeights s = make_empty_bert_weights(c, true, pretraining);
    for (const BertTensorSlot& slot : bert_tensor_slots(s, true)) {
        *slot.tensor = Tensor(slot.shape);
        fill_random_normal(*slot.tensor, 5, slot.name + (second_moment ? "/v" : "/m"), 0.0f, 1e-3f);
        if (second_moment)
            for (float& x : slot.tensor->values) x = (1e-3f + std::fabs(x)) * (1e-3f + std::fabs(x));
    }
    round_all(s, dtype);
    return s;
}

// The slot width the training step's weight ring gets in the tests: one matmul wide (KernelHarness's).
inline uint32_t weight_slot_columns(const config::NeuronCoreSpec& spec) {
    return std::max(spec.tensor.max_moving_free, spec.tensor.max_stationary_free);
}

// One optimizer step through a training program's graphs (training_step.h): `write_micro_step(k)`
// writes micro-step k's inputs before its execution (the first micro-step's graph, then the
// accumulating one's), then the AdamW scalars before the optimizer's. The micro-steps' losses.
inline std::vector<float> run_training_step(DeviceRun& run, uint32_t micro_steps,
                                            const std::function<void(uint32_t)>& write_micro_step,
                                            const std::vector<float>& adamw_scalars) {
    std::vector<float> losses;
    for (uint32_t k = 0; k < micro_steps; ++k) {
        write_micro_step(k);
        run.run(true, k == 0 ? train::kFirstMicroStepGraph : train::kMicroStepGraph);
        losses.push_back(run.read(train::kLossOutput).at(0));
    }
    run.write(train::kAdamWScalarsInput, adamw_scalars);
    run.run(true, train::kOptimizerGraph);
    return losses;
}

}  // namespace nsim::kernels::testing
