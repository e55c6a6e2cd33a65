#include "reference/classifier_head.h"

#include <algorithm>

#include "reference/activations.h"
#include "reference/linear.h"

namespace nsim::kernels::reference {

Tensor first_token_rows(const Tensor& hidden, size_t batch, size_t seq) {
    const size_t width = hidden.cols();
    Tensor cls({batch, width});
    for (size_t b = 0; b < batch; ++b) std::copy_n(hidden.row(b * seq), width, cls.row(b));
    return cls;
}

Tensor pooler(const Tensor& hidden, const LinearWeights& w, size_t batch, size_t seq) {
    return apply_tanh(linear(first_token_rows(hidden, batch, seq), w));
}

Tensor classifier(const Tensor& pooled, const LinearWeights& w) { return linear(pooled, w); }

}  // namespace nsim::kernels::reference
