// The reference pieces on cases small enough to work out by hand, and properties of the whole forward
// pass a correct BERT must have (padding does not change a sequence's result; batching does not mix
// sequences; the configured activation and epsilon are the ones used).
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bert/random_weights.h"
#include "reference/activations.h"
#include "reference/attention.h"
#include "reference/bert_forward.h"
#include "reference/classifier_head.h"
#include "reference/embeddings.h"
#include "reference/layer_norm.h"
#include "reference/linear.h"
#include "reference/softmax.h"
#include "small_bert.h"

namespace nsim::kernels {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

TEST(ReferenceLinear, ComputesXWTransposePlusBias) {
    const Tensor x({2, 3}, {1, 2, 3, -1, 0, 2});
    const LinearWeights w{Tensor({2, 3}, {1, 0, 1, 0.5f, -1, 2}), Tensor({2}, {10, 20})};
    EXPECT_THAT(reference::linear(x, w).values, ElementsAre(14, 24.5f, 11, 23.5f));
    EXPECT_THROW(reference::linear(Tensor({1, 2}), w), std::invalid_argument);
}

TEST(ReferenceLayerNorm, NormalisesEachRowWithBiasedVarianceAndEps) {
    const Tensor x({1, 4}, {1, 2, 3, 4});
    const LayerNormWeights w{Tensor({4}, {1, 1, 2, 1}), Tensor({4}, {0, 0, 0, 1})};
    // mean 2.5, variance 1.25
    const float s = 1.0f / std::sqrt(1.25f);
    EXPECT_THAT(reference::layer_norm(x, w, 0.0).values,
                Pointwise(FloatNear(1e-6f), std::vector<float>{-1.5f * s, -0.5f * s, 2 * 0.5f * s, 1.5f * s + 1}));
    // A large eps visibly shrinks the result.
    EXPECT_NEAR(reference::layer_norm(x, w, 1.0).values[0], -1.5 / std::sqrt(2.25), 1e-6);
}

TEST(ReferenceActivations, KnownValues) {
    EXPECT_NEAR(reference::gelu_erf(1.0f), 0.8413447, 1e-6);
    EXPECT_NEAR(reference::gelu_erf(-1.0f), -0.1586553, 1e-6);
    EXPECT_NEAR(reference::gelu_tanh(1.0f), 0.8411920, 1e-6);
    EXPECT_NEAR(reference::gelu_tanh(-3.0f), -0.0036374, 1e-6);
    EXPECT_EQ(reference::relu(-2.0f), 0.0f);
    EXPECT_EQ(reference::activation(HiddenActivation::GeluErf, 0.0f), 0.0f);
}

TEST(ReferenceSoftmax, KnownValuesAndLargeInputs) {
    std::vector<float> v{1, 2, 3};
    reference::softmax_in_place(v.data(), v.size());
    EXPECT_THAT(v, Pointwise(FloatNear(1e-6f), std::vector<float>{0.0900306f, 0.2447285f, 0.6652410f}));
    std::vector<float> big{1000, 1000, 1000 + std::log(2.0f)};
    reference::softmax_in_place(big.data(), big.size());
    EXPECT_THAT(big, Pointwise(FloatNear(1e-5f), std::vector<float>{0.25f, 0.25f, 0.5f}));
}

TEST(ReferenceAttention, MaskedKeysGetNoWeightAndHeadsUseTheirOwnColumns) {
    // batch 1, seq 2, hidden 2, heads 2 (head size 1). Key 1 is masked: every query attends only key 0.
    const Tensor q({2, 2}, {1, 2, 3, 4});
    const Tensor k({2, 2}, {5, 6, 7, 8});
    const Tensor v({2, 2}, {10, 20, 30, 40});
    const Tensor mask = reference::attention_mask_bias({1, 0}, 1, 2);
    EXPECT_THAT(mask.values, ElementsAre(0.0f, reference::kMaskedScoreBias));
    const Tensor probs = reference::attention_probabilities(q, k, mask, 1, 2, 2);
    EXPECT_EQ(probs.shape, (Shape{1, 2, 2, 2}));
    for (size_t i = 0; i < probs.size(); i += 2) {
        EXPECT_FLOAT_EQ(probs.values[i], 1.0f);
        EXPECT_FLOAT_EQ(probs.values[i + 1], 0.0f);
    }
    EXPECT_THAT(reference::attention_context(probs, v, 1, 2, 2).values, ElementsAre(10, 20, 10, 20));

    // Unmasked, head 0 of query 0: scores 1*5 and 1*7 (scale 1/sqrt(1)) -> softmax(5, 7).
    const Tensor open = reference::attention_probabilities(q, k, reference::attention_mask_bias({1, 1}, 1, 2), 1, 2, 2);
    const double p1 = 1.0 / (1.0 + std::exp(-2.0));
    EXPECT_NEAR(open.values[1], p1, 1e-6);
    // Head 1 of query 0: scores 2*6 and 2*8.
    EXPECT_NEAR(open.values[4 + 1], 1.0 / (1.0 + std::exp(-4.0)), 1e-6);
}

TEST(ReferenceAttention, ScoresAreScaledByInverseSqrtHeadSize) {
    // One head of size 4: q.k = 4, scaled to 2; against a zero key the softmax is (e^2, e^0) normalised.
    const Tensor q({2, 4}, {1, 1, 1, 1, 0, 0, 0, 0});
    const Tensor k({2, 4}, {1, 1, 1, 1, 0, 0, 0, 0});
    const Tensor probs = reference::attention_probabilities(q, k, reference::attention_mask_bias({1, 1}, 1, 2), 1, 2, 1);
    EXPECT_NEAR(probs.values[0], std::exp(2.0) / (std::exp(2.0) + 1.0), 1e-6);
}

TEST(ReferenceEmbeddings, SumsThreeTablesThenLayerNorm) {
    BertEmbeddingWeights w{Tensor({3, 2}, {0, 0, 1, 3, 5, 5}), Tensor({2, 2}, {0, 1, 0, 2}), Tensor({2, 2}, {0, 0, 1, 1}),
                           {Tensor({2}, {1, 1}), Tensor({2}, {0, 0})}};
    TokenBatch tokens{1, 2, {1, 2}, {0, 1}, {1, 1}};
    const Tensor e = reference::embeddings(w, tokens, 0.0);
    // token 0: (1,3)+(0,1)+(0,0) = (1,4) -> (-1, 1); token 1: (5,5)+(0,2)+(1,1) = (6,8) -> (-1, 1)
    EXPECT_THAT(e.values, Pointwise(FloatNear(1e-6f), std::vector<float>{-1, 1, -1, 1}));
    tokens.input_ids[1] = 3;
    EXPECT_THROW(reference::embeddings(w, tokens, 0.0), std::out_of_range);
}

TEST(ReferencePooler, TakesTheFirstTokenOfEachSequenceThroughTanh) {
    const Tensor hidden({4, 1}, {0.5f, 9, -1, 9});  // batch 2, seq 2
    const LinearWeights w{Tensor({1, 1}, {2}), Tensor({1}, {0})};
    EXPECT_THAT(reference::pooler(hidden, w, 2, 2).values,
                Pointwise(FloatNear(1e-6f), std::vector<float>{std::tanh(1.0f), std::tanh(-2.0f)}));
}

TokenBatch two_sequences(size_t seq_len) {
    // Sequence 0: 5 real tokens, sequence 1: 3 real tokens (second segment from position 3), rest padding.
    TokenBatch t{2, seq_len, std::vector<int32_t>(2 * seq_len, 0), std::vector<int32_t>(2 * seq_len, 0),
                 std::vector<int32_t>(2 * seq_len, 0)};
    const int32_t a[5] = {1, 7, 9, 11, 2}, b[3] = {1, 30, 2};
    for (size_t i = 0; i < 5; ++i) t.input_ids[i] = a[i], t.attention_mask[i] = 1, t.token_type_ids[i] = i >= 3;
    for (size_t i = 0; i < 3; ++i) t.input_ids[seq_len + i] = b[i], t.attention_mask[seq_len + i] = 1;
    return t;
}

TEST(ReferenceForward, PaddingLengthDoesNotChangeTheLogits) {
    const BertWeights w = random_bert_weights(testing::small_bert_config(), 11);
    const auto short_run = reference::bert_forward(w, two_sequences(6));
    const auto long_run = reference::bert_forward(w, two_sequences(12));
    ASSERT_EQ(short_run.logits.shape, (Shape{2, 2}));
    EXPECT_THAT(short_run.logits.values, Pointwise(FloatNear(1e-6f), long_run.logits.values));
    EXPECT_EQ(short_run.layer_outputs.size(), 2u);
}

TEST(ReferenceForward, BatchingDoesNotMixSequences) {
    const BertWeights w = random_bert_weights(testing::small_bert_config(), 11);
    const TokenBatch both = two_sequences(6);
    TokenBatch first{1, 6, {both.input_ids.begin(), both.input_ids.begin() + 6},
                     {both.token_type_ids.begin(), both.token_type_ids.begin() + 6},
                     {both.attention_mask.begin(), both.attention_mask.begin() + 6}};
    const auto batched = reference::bert_forward(w, both);
    const auto alone = reference::bert_forward(w, first);
    EXPECT_EQ(batched.logits.values[0], alone.logits.values[0]);
    EXPECT_EQ(batched.logits.values[1], alone.logits.values[1]);
    EXPECT_NE(batched.logits.values[0], batched.logits.values[2]);
}

TEST(ReferenceForward, ConfiguredActivationAndEpsAreUsed) {
    BertConfig config = testing::small_bert_config();
    config.initializer_range = 0.5;  // large enough activations for the two GELUs to differ in fp32
    BertWeights w = random_bert_weights(config, 11);
    const float erf_logit = reference::bert_forward(w, two_sequences(6)).logits.values[0];
    w.config.hidden_act = HiddenActivation::GeluTanh;
    const float tanh_logit = reference::bert_forward(w, two_sequences(6)).logits.values[0];
    w.config.layer_norm_eps = 1.0;
    const float eps_logit = reference::bert_forward(w, two_sequences(6)).logits.values[0];
    EXPECT_NE(erf_logit, tanh_logit);
    EXPECT_NE(tanh_logit, eps_logit);
    EXPECT_NEAR(erf_logit, tanh_logit, 0.05 * std::fabs(erf_logit) + 1e-3) << "the two GELUs differ only slightly";
}

TEST(ReferenceForward, WeightsWithoutEmbeddingsNeedEmbeddingInputs) {
    const BertWeights w = random_bert_weights(testing::small_bert_config(), 11, false);
    EXPECT_THROW(reference::bert_forward(w, two_sequences(6)), std::invalid_argument);
    const auto result = reference::bert_forward_from_embeddings(w, Tensor({6, 8}), std::vector<int32_t>(6, 1), 1, 6);
    EXPECT_EQ(result.logits.shape, (Shape{1, 2}));
}

}  // namespace
}  // namespace nsim::kernels
