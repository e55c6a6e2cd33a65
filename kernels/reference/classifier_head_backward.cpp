#include "reference/classifier_head_backward.h"

#include "reference/classifier_head.h"
#include "reference/elementwise_backward.h"

namespace nsim::kernels::reference {

ClassifierHeadGradients classifier_head_backward(const Tensor& hidden, const LinearWeights& pooler,
                                                 const LinearWeights& classifier, const Tensor& dlogits, size_t batch,
                                                 size_t seq) {
    const Tensor cls = first_token_rows(hidden, batch, seq);
    const Tensor pooled = reference::pooler(hidden, pooler, batch, seq);
    ClassifierHeadGradients g;
    g.classifier = linear_backward(pooled, classifier.weight, dlogits);
    g.pooler = linear_backward(cls, pooler.weight, tanh_backward(pooled, g.classifier.input));
    g.hidden = Tensor(hidden.shape);
    for (size_t b = 0; b < batch; ++b)
        for (size_t h = 0; h < hidden.cols(); ++h) g.hidden.at(b * seq, h) = g.pooler.input.at(b, h);
    return g;
}

}  // namespace nsim::kernels::reference
