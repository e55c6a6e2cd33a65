// What the training-step tests share: every tensor of a model rounded to a dtype, and AdamW states
// of an earlier step.
#pragma once

#include <cmath>

#include "bert/random_weights.h"
#include "kernel_harness.h"

namespace nsim::kernels::testing {

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

}  // namespace nsim::kernels::testing
