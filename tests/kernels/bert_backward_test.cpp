// The whole-model reference gradient (reference/bert_backward.h) against central finite differences
// of the forward reference's loss (reference::bert_forward + cross_entropy), on a small model with
// every kind of parameter: per tensor, the entry of the largest gradient and a few others. This checks
// the backward references (linear, GELU, softmax/attention, layernorm, embeddings, head, loss) as they
// are chained, independently of how each was derived.
#include <gtest/gtest.h>

#include <cmath>

#include "bert/random_weights.h"
#include "reference/bert_backward.h"
#include "reference/bert_forward.h"
#include "reference/cross_entropy.h"
#include "small_bert.h"

namespace nsim::kernels {
namespace {

// small_bert.h's model, wider (so that each of its 2 heads has 16 features) and with 3 labels.
BertConfig small_config() {
    BertConfig c = testing::small_bert_config();
    c.hidden_size = 32;
    c.intermediate_size = 64;
    c.num_labels = 3;
    return c;
}

TokenBatch small_batch() {
    TokenBatch t;
    t.batch = 2;
    t.seq_len = 8;
    for (size_t i = 0; i < t.batch * t.seq_len; ++i) {
        t.input_ids.push_back(int32_t((i * 13 + 5) % 40));
        t.token_type_ids.push_back(i % t.seq_len >= 5 ? 1 : 0);
        t.attention_mask.push_back(i >= 14 ? 0 : 1);  // the second sequence padded
    }
    return t;
}

double loss_of(const BertWeights& w, const TokenBatch& tokens, const std::vector<int32_t>& labels) {
    return reference::cross_entropy(reference::bert_forward(w, tokens).logits, labels).loss;
}

TEST(BertBackwardReference, MatchesFiniteDifferencesOfTheForwardLoss) {
    BertWeights weights = random_bert_weights(small_config(), 3);
    // Larger than BERT's 0.02 initialisation, so that every layer's gradients stand well above the
    // finite differences' rounding noise.
    for (BertTensorSlot& s : bert_tensor_slots(weights, true))
        if (!s.is_layer_norm)
            for (float& v : s.tensor->values) v *= 5.0f;
    const TokenBatch tokens = small_batch();
    const std::vector<int32_t> labels = {1, 2};
    reference::BertGradients g = reference::bert_classification_gradients(weights, tokens, labels);
    EXPECT_NEAR(g.loss, loss_of(weights, tokens, labels), 1e-6);

    std::vector<BertTensorSlot> params = bert_tensor_slots(weights, true);
    std::vector<BertTensorSlot> grads = bert_tensor_slots(g.weights, true);
    ASSERT_EQ(params.size(), grads.size());
    const double eps = 1e-3;
    double worst = 0;
    size_t checked = 0;
    for (size_t s = 0; s < params.size(); ++s) {
        std::vector<float>& p = params[s].tensor->values;
        const std::vector<float>& d = grads[s].tensor->values;
        ASSERT_EQ(p.size(), d.size()) << params[s].name;
        size_t largest = 0;
        for (size_t i = 1; i < d.size(); ++i)
            if (std::fabs(d[i]) > std::fabs(d[largest])) largest = i;
        for (size_t i : {largest, d.size() / 3, (d.size() * 7) / 11, d.size() - 1}) {
            const float saved = p[i];
            p[i] = saved + float(eps);
            const double up = loss_of(weights, tokens, labels);
            p[i] = saved - float(eps);
            const double down = loss_of(weights, tokens, labels);
            p[i] = saved;
            const double numeric = (up - down) / (2 * eps);
            const double allowed = 2e-4 + 2e-2 * std::fabs(numeric);
            EXPECT_NEAR(d[i], numeric, allowed) << params[s].name << "[" << i << "]";
            worst = std::max(worst, std::fabs(d[i] - numeric) / allowed);
            ++checked;
        }
        // The key bias shifts every score of a row by the same amount, which softmax ignores: its
        // gradient is zero (up to rounding), and the finite differences above agree.
        const bool key_bias = params[s].name.find("attention.self.key.bias") != std::string::npos;
        if (key_bias) EXPECT_LT(std::fabs(d[largest]), 1e-6) << params[s].name;
        else EXPECT_GT(std::fabs(d[largest]), 1e-3) << params[s].name << ": no gradient reaches it";
    }
    std::cout << checked << " entries checked; worst |analytic - numeric| / allowed = " << worst << "\n";
}

TEST(BertBackwardReference, NeedsTheEmbeddingsAndTheErfGelu) {
    BertWeights weights = random_bert_weights(small_config(), 3, false);
    EXPECT_THROW(reference::bert_classification_gradients(weights, small_batch(), {1, 2}), std::invalid_argument);
    BertConfig tanh = small_config();
    tanh.hidden_act = HiddenActivation::GeluTanh;
    EXPECT_THROW(reference::bert_classification_gradients(random_bert_weights(tanh, 3), small_batch(), {1, 2}),
                 std::invalid_argument);
}

}  // namespace
}  // namespace nsim::kernels
