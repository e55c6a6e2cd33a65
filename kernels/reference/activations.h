// Reference elementwise activations: BERT's hidden_act choices and the pooler's tanh.
#pragma once

#include "bert/bert_config.h"
#include "bert/tensor.h"

namespace nsim::kernels::reference {

float gelu_erf(float x);   // 0.5 x (1 + erf(x / sqrt 2)), "gelu"
float gelu_tanh(float x);  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), "gelu_new"
float relu(float x);
float activation(HiddenActivation act, float x);

Tensor apply_activation(Tensor x, HiddenActivation act);
Tensor apply_tanh(Tensor x);

}  // namespace nsim::kernels::reference
