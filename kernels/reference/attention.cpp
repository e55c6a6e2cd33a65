#include "reference/attention.h"

#include <cmath>
#include <stdexcept>

#include "reference/linear.h"
#include "reference/softmax.h"

namespace nsim::kernels::reference {

Tensor attention_mask_bias(const std::vector<int32_t>& attention_mask, size_t batch, size_t seq) {
    if (attention_mask.size() != batch * seq) throw std::invalid_argument("attention_mask_bias: size is not batch * seq");
    Tensor bias({batch, seq});
    for (size_t i = 0; i < attention_mask.size(); ++i) bias.values[i] = attention_mask[i] ? 0.0f : kMaskedScoreBias;
    return bias;
}

Tensor attention_probabilities(const Tensor& q, const Tensor& k, const Tensor& mask_bias, size_t batch, size_t seq,
                               size_t heads) {
    const size_t hidden = q.cols();
    const size_t head_size = hidden / heads;
    const double scale = 1.0 / std::sqrt(static_cast<double>(head_size));
    Tensor probs({batch, heads, seq, seq});
    for (size_t b = 0; b < batch; ++b) {
        for (size_t h = 0; h < heads; ++h) {
            for (size_t i = 0; i < seq; ++i) {
                const float* qi = q.row(b * seq + i) + h * head_size;
                float* row = probs.values.data() + ((b * heads + h) * seq + i) * seq;
                for (size_t j = 0; j < seq; ++j) {
                    const float* kj = k.row(b * seq + j) + h * head_size;
                    double dot = 0;
                    for (size_t d = 0; d < head_size; ++d) dot += static_cast<double>(qi[d]) * kj[d];
                    row[j] = static_cast<float>(dot * scale + mask_bias.values[b * seq + j]);
                }
                softmax_in_place(row, seq);
            }
        }
    }
    return probs;
}

Tensor attention_context(const Tensor& probabilities, const Tensor& v, size_t batch, size_t seq, size_t heads) {
    const size_t hidden = v.cols();
    const size_t head_size = hidden / heads;
    Tensor context({batch * seq, hidden});
    std::vector<double> acc(head_size);
    for (size_t b = 0; b < batch; ++b) {
        for (size_t h = 0; h < heads; ++h) {
            for (size_t i = 0; i < seq; ++i) {
                const float* p = probabilities.values.data() + ((b * heads + h) * seq + i) * seq;
                std::fill(acc.begin(), acc.end(), 0.0);
                for (size_t j = 0; j < seq; ++j) {
                    const float* vj = v.row(b * seq + j) + h * head_size;
                    for (size_t d = 0; d < head_size; ++d) acc[d] += static_cast<double>(p[j]) * vj[d];
                }
                float* out = context.row(b * seq + i) + h * head_size;
                for (size_t d = 0; d < head_size; ++d) out[d] = static_cast<float>(acc[d]);
            }
        }
    }
    return context;
}

Tensor self_attention_context(const Tensor& x, const BertLayerWeights& w, const Tensor& mask_bias, size_t batch,
                              size_t seq, size_t heads) {
    const Tensor q = linear(x, w.query);
    const Tensor k = linear(x, w.key);
    const Tensor v = linear(x, w.value);
    return attention_context(attention_probabilities(q, k, mask_bias, batch, seq, heads), v, batch, seq, heads);
}

}  // namespace nsim::kernels::reference
