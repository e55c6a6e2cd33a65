#include "reference/encoder_layer.h"

#include "reference/activations.h"
#include "reference/attention.h"
#include "reference/layer_norm.h"
#include "reference/linear.h"

namespace nsim::kernels::reference {

Tensor projection_residual_layer_norm(const Tensor& x, const LinearWeights& dense, const Tensor& residual,
                                      const LayerNormWeights& norm, double eps) {
    return layer_norm(add(linear(x, dense), residual), norm, eps);
}

Tensor feed_forward_intermediate(const Tensor& x, const LinearWeights& intermediate, HiddenActivation act) {
    return apply_activation(linear(x, intermediate), act);
}

Tensor encoder_layer(const Tensor& x, const BertLayerWeights& w, const BertConfig& config, const Tensor& mask_bias,
                     size_t batch, size_t seq) {
    const auto heads = static_cast<size_t>(config.num_attention_heads);
    const Tensor context = self_attention_context(x, w, mask_bias, batch, seq, heads);
    const Tensor attended =
        projection_residual_layer_norm(context, w.attention_output, x, w.attention_layer_norm, config.layer_norm_eps);
    const Tensor inner = feed_forward_intermediate(attended, w.intermediate, config.hidden_act);
    return projection_residual_layer_norm(inner, w.output, attended, w.output_layer_norm, config.layer_norm_eps);
}

}  // namespace nsim::kernels::reference
