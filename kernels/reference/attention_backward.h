// Reference gradients of multi-head scaled dot-product self-attention (attention.h) given the
// gradient of the context, in double: P recomputed from Q and K, then
//   dV = P^T dC;  dP = dC V^T;  dS = P (dP - rowsum(dP P));  dQ = scale dS K;  dK = scale dS^T Q
// per sequence and head. The value bias is part of V for the forward (P (V + bv)); it has no
// influence on dQ, dK, dV.
#pragma once

#include <cstddef>

#include "bert/tensor.h"

namespace nsim::kernels::reference {

struct AttentionGradients {
    Tensor query, key, value;  // [batch * seq, hidden] each
};

// q, k, v, dcontext [batch * seq, hidden]; mask_bias [batch, seq] (attention_mask_bias).
// With dropout on the probabilities (dropout: multipliers M [batch, heads, seq, seq], dropout_mask.h;
// the forward's context = (P M) V): dV = (P M)^T dC and dP = M (dC V^T), whose per-row share of
// V's bias no longer cancels - v must then include the bias.
AttentionGradients attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask_bias,
                                      const Tensor& dcontext, size_t batch, size_t seq, size_t heads,
                                      const Tensor* dropout = nullptr);

}  // namespace nsim::kernels::reference
