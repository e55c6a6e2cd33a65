// One training step of a small BertForSequenceClassification (2 layers, hidden 128, 2 heads, FFN 512,
// two sequences of 16 tokens, the second padded; a 300-word vocabulary) as one program on a
// simulated trn1 NeuronCore (train::training_step: forward, loss, backward, AdamW), run functionally
// and compared with reference::bert_classification_gradients and reference::adamw_step on every
// parameter: the loss, each gradient, and each parameter's update and AdamW m.
// Tolerances relative to the largest reference value of each tensor: fp32 1e-4 (the bound).
// bf16: 5e-2 - every activation the forward keeps and every gradient between kernels is rounded to
// 8 significant bits (2^-9 relative each), through two layers and back, and the bf16 parameters
// themselves only hold an update to within their own ulp; measured values are printed.
#include <gtest/gtest.h>

#include <cmath>

#include "bert/random_weights.h"
#include "kernel_harness.h"
#include "reference/adamw.h"
#include "reference/bert_backward.h"
#include "train/training_step.h"

namespace nsim::kernels {
namespace {

using device::Precision;
using testing::KernelHarness;

constexpr uint32_t kBatch = 2, kSeq = 16;

BertConfig small_config() {
    BertConfig c;
    c.vocab_size = 300;
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 512;
    c.max_position_embeddings = 32;
    c.initializer_range = 0.08;
    c.num_labels = 3;
    return c;
}

// Every tensor of `w` as stored in `dtype`.
void round_all(BertWeights& w, isa::DType dtype) {
    for (const BertTensorSlot& slot : bert_tensor_slots(w, true)) *slot.tensor = testing::rounded(*slot.tensor, dtype);
}

// AdamW states of an earlier step: m ~ N(0, 1e-3), v = (1e-3 + |N(0, 1e-3)|)^2 - away from zero, as a
// running mean of squared gradients is, so m / sqrt(v) stays O(1) as in training (near v = 0 the
// update would amplify any difference in the gradient without bound).
BertWeights adam_states(const BertConfig& c, bool second_moment) {
    BertWeights s = make_empty_bert_weights(c, true);
    for (const BertTensorSlot& slot : bert_tensor_slots(s, true)) {
        *slot.tensor = Tensor(slot.shape);
        fill_random_normal(*slot.tensor, 5, slot.name + (second_moment ? "/v" : "/m"), 0.0f, 1e-3f);
        if (second_moment)
            for (float& x : slot.tensor->values) x = (1e-3f + std::fabs(x)) * (1e-3f + std::fabs(x));
    }
    return s;
}

TokenBatch tokens() {
    TokenBatch t{kBatch, kSeq, {}, {}, {}};
    for (uint32_t i = 0; i < kBatch * kSeq; ++i) {
        const uint32_t s = i % kSeq;
        t.input_ids.push_back(int32_t((i * 37 + 11) % 300));
        t.token_type_ids.push_back(s < kSeq / 2 ? 0 : 1);
        t.attention_mask.push_back(i >= kSeq && s >= 13 ? 0 : 1);  // the second sequence has 13 tokens
    }
    t.input_ids[3] = t.input_ids[kSeq + 5] = 7;  // one word twice: its gradient rows add up
    return t;
}

class TrainingStep : public ::testing::TestWithParam<Precision> {};

TEST_P(TrainingStep, GradientsAndAdamWUpdateMatchTheReference) {
    const Precision precision = GetParam();
    KernelHarness h("trn1.2xlarge", precision);
    const isa::DType act = h.dtypes().activation;
    const bool fp32 = act == isa::DType::Fp32;
    const double tolerance = fp32 ? 1e-4 : 5e-2;
    const BertConfig config = small_config();
    BertWeights weights = random_bert_weights(config, 17, true);
    round_all(weights, act);
    const BertWeights m = adam_states(config, false), v = adam_states(config, true);
    const TokenBatch batch = tokens();
    const std::vector<int32_t> labels = {2, 0};
    train::TrainingHyper hyper;
    hyper.lr = 1e-3;
    hyper.weight_decay = 0.01;
    hyper.step = 3;

    const train::TrainingStepOutputs step =
        train::training_step(h.ctx(), h.program(), h.io(), weights, m, v, batch, labels, hyper);
    std::cout << device::name_of(precision) << " step program: " << h.core().sbuf_used() << " bytes of SBUF per partition\n";
    const auto run = h.run();

    reference::BertGradients want = reference::bert_classification_gradients(weights, batch, labels);
    const double loss = run->read(step.loss)[0];
    std::cout << device::name_of(precision) << " loss " << loss << " (reference " << want.loss << ")\n";
    EXPECT_LT(std::fabs(loss - want.loss), tolerance * std::fabs(want.loss));

    BertWeights want_p = weights, want_m = m, want_v = v;
    const std::vector<BertTensorSlot> grads = bert_tensor_slots(want.weights, true);
    const std::vector<BertTensorSlot> ps = bert_tensor_slots(want_p, true), ms = bert_tensor_slots(want_m, true);
    const std::vector<BertTensorSlot> vs = bert_tensor_slots(want_v, true);
    const reference::AdamWHyper adam{hyper.lr, hyper.constants.beta1, hyper.constants.beta2, hyper.constants.eps,
                                     hyper.weight_decay};
    ASSERT_EQ(grads.size(), step.parameters.size());
    double worst_gradient = 0, worst_update = 0;
    for (size_t i = 0; i < grads.size(); ++i) {
        const std::string& name = grads[i].name;
        ASSERT_EQ(name, step.parameters[i]);
        const Tensor before = *ps[i].tensor;
        reference::adamw_step(*ps[i].tensor, *ms[i].tensor, *vs[i].tensor, *grads[i].tensor, adam, hyper.step);
        const std::vector<float> got_grad = run->read(train::gradient_output(name));
        const std::vector<float> got_p = run->read(train::parameter_output(name));
        // The key bias's gradient is zero but for rounding (softmax ignores a per-row shift): checked
        // against the query bias's below rather than relative to itself.
        const bool key_bias = name.find("key.bias") != std::string::npos;
        if (!key_bias) {
            const double e = testing::relative_error(got_grad, grads[i].tensor->values);
            worst_gradient = std::max(worst_gradient, e);
            EXPECT_LT(e, tolerance) << "gradient of " << name;
        } else {
            double dbk = 0, dbq = 0;
            for (float x : got_grad) dbk = std::max(dbk, double(std::fabs(x)));
            for (float x : grads[i - 2].tensor->values) dbq = std::max(dbq, double(std::fabs(x)));
            EXPECT_LT(dbk, tolerance * dbq) << name;
        }
        // fp32: the update, relative to the largest of it, give or take the roundings of the new
        // parameter (p decay and p decay - update on the device, the reference's float: 1.5 ulp of
        // p at most, 2 allowed - an fp32 p holds an update ~1e-3 of it only to ~1e-4 of the update);
        // bf16: the parameter itself (its ulp is near the size of the update).
        double e = 0;
        if (fp32) {
            double diff = 0, update = 0, largest = 0;
            for (size_t j = 0; j < got_p.size(); ++j) {
                diff = std::max(diff, std::fabs(double(got_p[j]) - ps[i].tensor->values[j]));
                update = std::max(update, std::fabs(double(ps[i].tensor->values[j]) - before.values[j]));
                largest = std::max(largest, std::fabs(double(before.values[j])));
            }
            e = diff / update;
            EXPECT_LE(diff, tolerance * update + std::ldexp(largest, -22)) << "AdamW update of " << name;
        } else {
            e = testing::relative_error(got_p, ps[i].tensor->values);
            EXPECT_LT(e, tolerance) << "AdamW update of " << name;
        }
        worst_update = std::max(worst_update, e);
        EXPECT_LT(testing::relative_error(run->read(train::m_output(name)), ms[i].tensor->values), tolerance)
            << "AdamW m of " << name;
    }
    std::cout << device::name_of(precision) << " " << grads.size() << " parameters: worst gradient error "
              << worst_gradient << ", worst update error " << worst_update << "\n";
}

// A program whose matmul and activation dtypes differ, a label count that is not the batch's, a label
// or a token id outside its range are refused before anything is built.
TEST(TrainingStepArguments, MixedPrecisionAndMislabelledBatchesAreRefused) {
    const BertConfig config = small_config();
    const BertWeights weights = random_bert_weights(config, 17, true);
    const BertWeights m = adam_states(config, false), v = adam_states(config, true);
    KernelHarness mixed("trn1.2xlarge", Precision::MixedBf16);
    EXPECT_THROW(train::training_step(mixed.ctx(), mixed.program(), mixed.io(), weights, m, v, tokens(), {1, 0}, {}),
                 std::invalid_argument);
    KernelHarness h("trn1.2xlarge", Precision::Fp32);
    EXPECT_THROW(train::training_step(h.ctx(), h.program(), h.io(), weights, m, v, tokens(), {1}, {}),
                 std::invalid_argument);
    EXPECT_THROW(train::training_step(h.ctx(), h.program(), h.io(), weights, m, v, tokens(), {1, 3}, {}),
                 std::invalid_argument);
    TokenBatch outside = tokens();
    outside.input_ids[4] = 300;
    EXPECT_THROW(train::training_step(h.ctx(), h.program(), h.io(), weights, m, v, outside, {1, 0}, {}),
                 std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Trn1, TrainingStep, ::testing::Values(Precision::Fp32, Precision::Bf16),
                         [](const ::testing::TestParamInfo<Precision>& info) {
                             return std::string(device::name_of(info.param));
                         });

}  // namespace
}  // namespace nsim::kernels
