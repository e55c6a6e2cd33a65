#include "reference/attention_backward.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "reference/attention.h"

namespace nsim::kernels::reference {

AttentionGradients attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask_bias,
                                      const Tensor& dcontext, size_t batch, size_t seq, size_t heads,
                                      const Tensor* dropout) {
    const size_t hidden = q.cols();
    if (heads == 0 || hidden % heads != 0 || q.rows() != batch * seq || k.shape != q.shape || v.shape != q.shape ||
        dcontext.shape != q.shape)
        throw std::invalid_argument(fmt::format("attention_backward: q {}, k {}, v {}, dcontext {} for {} x {} x {} heads",
                                                shape_to_string(q.shape), shape_to_string(k.shape),
                                                shape_to_string(v.shape), shape_to_string(dcontext.shape), batch, seq,
                                                heads));
    const size_t hs = hidden / heads;
    const double scale = 1.0 / std::sqrt(double(hs));
    const Tensor p = attention_probabilities(q, k, mask_bias, batch, seq, heads);
    AttentionGradients g{Tensor(q.shape), Tensor(q.shape), Tensor(q.shape)};
    std::vector<double> dp(seq), ds(seq);
    for (size_t b = 0; b < batch; ++b)
        for (size_t h = 0; h < heads; ++h) {
            const float* probs = p.values.data() + (b * heads + h) * seq * seq;
            const float* kept = dropout ? dropout->values.data() + (b * heads + h) * seq * seq : nullptr;
            std::vector<double> dq(seq * hs, 0.0), dk(seq * hs, 0.0), dv(seq * hs, 0.0);
            for (size_t i = 0; i < seq; ++i) {
                const size_t ti = b * seq + i;
                double dot = 0;
                for (size_t j = 0; j < seq; ++j) {
                    double sum = 0;
                    for (size_t d = 0; d < hs; ++d) sum += double(dcontext.at(ti, h * hs + d)) * v.at(b * seq + j, h * hs + d);
                    dp[j] = kept ? sum * kept[i * seq + j] : sum;
                    dot += dp[j] * probs[i * seq + j];
                }
                for (size_t j = 0; j < seq; ++j) ds[j] = probs[i * seq + j] * (dp[j] - dot);
                for (size_t j = 0; j < seq; ++j) {
                    const size_t tj = b * seq + j;
                    for (size_t d = 0; d < hs; ++d) {
                        const double dropped = kept ? double(probs[i * seq + j] * kept[i * seq + j]) : probs[i * seq + j];
                        dv[j * hs + d] += dropped * dcontext.at(ti, h * hs + d);
                        dq[i * hs + d] += scale * ds[j] * k.at(tj, h * hs + d);
                        dk[j * hs + d] += scale * ds[j] * q.at(ti, h * hs + d);
                    }
                }
            }
            for (size_t i = 0; i < seq; ++i)
                for (size_t d = 0; d < hs; ++d) {
                    g.query.at(b * seq + i, h * hs + d) = float(dq[i * hs + d]);
                    g.key.at(b * seq + i, h * hs + d) = float(dk[i * hs + d]);
                    g.value.at(b * seq + i, h * hs + d) = float(dv[i * hs + d]);
                }
        }
    return g;
}

}  // namespace nsim::kernels::reference
