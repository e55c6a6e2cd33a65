// Seeded random weights: reproducible to the bit (pinned values guard against a change of generator),
// independent per tensor, and with the intended spread.
#include <cmath>

#include <gtest/gtest.h>

#include "bert/random_weights.h"
#include "small_bert.h"

namespace nsim::kernels {
namespace {

TEST(RandomWeights, SameSeedSameBitsOtherSeedOtherValues) {
    const BertConfig c = testing::small_bert_config();
    BertWeights a = random_bert_weights(c, 42), b = random_bert_weights(c, 42), d = random_bert_weights(c, 43);
    EXPECT_EQ(a.layers[1].output.weight.values, b.layers[1].output.weight.values);
    EXPECT_EQ(a.embeddings->word.values, b.embeddings->word.values);
    EXPECT_NE(a.layers[1].output.weight.values, d.layers[1].output.weight.values);
    // Different tensors of one model are not copies of each other.
    EXPECT_NE(a.layers[0].query.weight.values, a.layers[0].key.weight.values);
}

TEST(RandomWeights, PinnedValuesDoNotDependOnPlatformOrLibrary) {
    Tensor t({4});
    fill_random_normal(t, 1, "pinned", 0.0f, 1.0f);
    // Integer arithmetic and IEEE double scaling only: the same bits everywhere (checked against an
    // independent Python implementation of the same SplitMix64 / Irwin-Hall recipe).
    const float expected[4] = {0.714560807f, 1.58251548f, -0.401086479f, 0.961169779f};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(t.values[i], expected[i]) << i;
}

TEST(RandomWeights, TensorsDependOnlyOnSeedAndName) {
    BertConfig one = testing::small_bert_config();
    one.num_hidden_layers = 1;
    BertWeights small = random_bert_weights(one, 5);
    BertWeights big = random_bert_weights(testing::small_bert_config(), 5, false);
    EXPECT_EQ(small.layers[0].intermediate.weight.values, big.layers[0].intermediate.weight.values);
    EXPECT_EQ(small.classifier.weight.values, big.classifier.weight.values);
    EXPECT_FALSE(big.embeddings.has_value());
}

TEST(RandomWeights, SpreadFollowsInitializerRangeAndLayerNormStaysNearIdentity) {
    BertConfig c = testing::small_bert_config();
    c.vocab_size = 2000;
    BertWeights w = random_bert_weights(c, 9);
    double sum = 0, squares = 0;
    for (float v : w.embeddings->word.values) {
        sum += v;
        squares += double(v) * v;
    }
    const double n = double(w.embeddings->word.size());
    EXPECT_NEAR(sum / n, 0.0, 0.001);
    EXPECT_NEAR(std::sqrt(squares / n), 0.02, 0.001);
    for (float g : w.layers[0].attention_layer_norm.gamma.values) EXPECT_NEAR(g, 1.0f, 0.35f);
    double bias_squares = 0;
    for (float b : w.layers[0].query.bias.values) bias_squares += double(b) * b;
    EXPECT_GT(bias_squares, 0.0) << "biases are not left at zero";
}

}  // namespace
}  // namespace nsim::kernels
