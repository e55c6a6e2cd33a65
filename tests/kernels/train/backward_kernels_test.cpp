// Each backward kernel (kernels/train), and AdamW, alone on a simulated NeuronCore against the plain
// C++ fp32 reference (kernels/reference/*_backward.h, cross_entropy.h, adamw.h), by data type. Inputs are
// rounded to the dtype they are stored in, so the reference sees exactly what the device does.
// Tolerances, relative to the largest reference value of the tensor: fp32 1e-4 (the bound;
// the kernels come out near 5e-7), and 1e-2 when the program or the stored gradient is bf16 (8
// significant bits: one rounding of the result is up to 2^-9 relative, plus the bf16 operands a bf16
// program multiplies and keeps between kernels, e.g. the probabilities and dS in attention, three in
// the classifier head, a dozen through an encoder layer; single kernels come out below 6e-3, the
// encoder layer's dx at 7.6e-3). Shapes are ragged on purpose: 160 tokens (a
// full and a partial token tile), 192 and 320 features (partial feature tiles and PSUM chunks).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "bert/random_weights.h"
#include "kernel_harness.h"
#include "reference/adamw.h"
#include "reference/attention.h"
#include "reference/attention_backward.h"
#include "reference/bert_backward.h"
#include "reference/classifier_head.h"
#include "reference/classifier_head_backward.h"
#include "reference/cross_entropy.h"
#include "reference/elementwise_backward.h"
#include "reference/embedding_backward.h"
#include "reference/layer_norm_backward.h"
#include "reference/linear_backward.h"
#include "reference/softmax.h"
#include "train/activation_backward.h"
#include "train/adamw.h"
#include "train/attention_backward.h"
#include "train/classifier_head_backward.h"
#include "train/cross_entropy.h"
#include "train/embedding_backward.h"
#include "train/encoder_layer_backward.h"
#include "train/layer_norm_backward.h"
#include "train/linear_backward.h"

namespace nsim::kernels {
namespace {

using device::Precision;
using device::TileSet;
using testing::KernelHarness;
using testing::rounded;

constexpr uint32_t kTokens = 160, kIn = 192, kOut = 320;

struct Case {
    std::string instance;
    Precision precision;
};

Tensor random(Shape shape, const std::string& name, float stddev = 0.5f, float mean = 0.0f) {
    Tensor t(std::move(shape));
    fill_random_normal(t, 29, name, mean, stddev);
    return t;
}

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.instance << "_" << device::name_of(c.precision); }

class BackwardKernel : public ::testing::TestWithParam<Case> {
protected:
    KernelHarness harness() const { return KernelHarness(GetParam().instance, GetParam().precision); }
    isa::DType mm() const { return device::dtypes_for(GetParam().precision).matmul; }
    isa::DType act() const { return device::dtypes_for(GetParam().precision).activation; }

    static double tolerance(isa::DType worst) {
        return worst == isa::DType::Bf16 ? 1e-2 : worst == isa::DType::Fp16 ? 3e-3 : 1e-4;
    }
    // The narrowest of the program's dtypes and the stored result's.
    isa::DType worst(isa::DType stored) const {
        for (isa::DType t : {isa::DType::Bf16, isa::DType::Fp16})
            if (mm() == t || act() == t || stored == t) return t;
        return isa::DType::Fp32;
    }
    void expect_cross_entropy(uint32_t classes);
    void expect_attention_gradients(uint32_t seq, uint32_t heads, const std::vector<uint32_t>& valid);
    void expect_close(const std::vector<float>& got, const Tensor& want, isa::DType stored, const std::string& what) {
        const double error = testing::relative_error(got, want.values);
        std::cout << GetParam().instance << " " << device::name_of(GetParam().precision) << " " << what
                  << ": relative error " << error << "\n";
        EXPECT_LT(error, tolerance(worst(stored))) << what;
    }
};

TEST_P(BackwardKernel, LinearInputWeightAndBiasGradients) {
    KernelHarness h = harness();
    const Tensor x = rounded(random({kTokens, kIn}, "x"), mm());
    const Tensor w = rounded(random({kOut, kIn}, "w", 0.08f), mm());
    const Tensor dy = rounded(random({kTokens, kOut}, "dy"), mm());
    const TileSet xs = h.load("x", x, mm()), dys = h.load("dy", dy, mm());
    const device::DramMatrix weight{h.dram("w", w, mm()), kOut, kIn, mm()};
    TileSet dx = device::allocate_tiles(h.core(), kTokens, kIn, act(), "dx");
    TileSet dw = device::allocate_tiles(h.core(), kOut, kIn, isa::DType::Fp32, "dw");
    TileSet db = device::allocate_tiles(h.core(), 1, kOut, isa::DType::Fp32, "db");
    train::linear_backward(h.ctx(), xs, dys, weight, {&dx, &dw, &db});
    h.store("dx", dx);
    h.store("dw", dw);
    h.store("db", db);
    const auto run = h.run();
    const reference::LinearGradients want = reference::linear_backward(x, w, dy);
    expect_close(run->read("dx"), want.input, act(), "dx = dy W");
    expect_close(run->read("dw"), want.weight, isa::DType::Fp32, "dW = dy^T x");
    expect_close(run->read("db"), want.bias, isa::DType::Fp32, "db = sum dy");
}

TEST_P(BackwardKernel, GeluFromItsInput) {
    KernelHarness h = harness();
    const Tensor x = rounded(random({kTokens, kOut}, "x", 1.5f), mm());
    const Tensor dy = rounded(random({kTokens, kOut}, "dy"), mm());
    const TileSet xs = h.load("x", x, mm()), dys = h.load("dy", dy, mm());
    TileSet dx = device::allocate_tiles(h.core(), kTokens, kOut, mm(), "dx");
    train::gelu_backward(h.ctx(), xs, dys, dx);
    h.store("dx", dx);
    expect_close(h.run()->read("dx"), reference::gelu_backward(x, dy), mm(), "dy gelu'(x)");
}

TEST_P(BackwardKernel, TanhFromItsOutput) {
    KernelHarness h = harness();
    Tensor y = random({kTokens, kIn}, "y", 1.0f);
    for (float& v : y.values) v = std::tanh(v);
    y = rounded(y, act());
    const Tensor dy = rounded(random({kTokens, kIn}, "dy"), act());
    const TileSet ys = h.load("y", y, act()), dys = h.load("dy", dy, act());
    TileSet dx = device::allocate_tiles(h.core(), kTokens, kIn, act(), "dx");
    train::tanh_backward(h.ctx(), ys, dys, dx);
    h.store("dx", dx);
    expect_close(h.run()->read("dx"), reference::tanh_backward(y, dy), act(), "dy (1 - y^2)");
}

TEST_P(BackwardKernel, SoftmaxRowsScaled) {
    KernelHarness h = harness();
    constexpr uint32_t kKeys = 80;
    Tensor p = random({kTokens, kKeys}, "scores", 2.0f);
    for (size_t r = 0; r < kTokens; ++r) reference::softmax_in_place(p.row(r), kKeys);
    p = rounded(p, mm());
    const Tensor dp = rounded(random({kTokens, kKeys}, "dp"), mm());
    const TileSet ps = h.load("p", p, mm()), dps = h.load("dp", dp, mm());
    TileSet ds = device::allocate_tiles(h.core(), kTokens, kKeys, mm(), "ds");
    train::softmax_backward(h.ctx(), ps, dps, ds, 0.125f);
    h.store("ds", ds);
    expect_close(h.run()->read("ds"), reference::softmax_backward(p, dp, 0.125), mm(), "p (dp - rowsum(dp p)) / 8");
}

TEST_P(BackwardKernel, LayerNormInputGammaAndBetaGradients) {
    KernelHarness h = harness();
    const Tensor x = rounded(random({kTokens, kIn}, "x", 1.0f, 0.3f), act());
    const Tensor dy = rounded(random({kTokens, kIn}, "dy"), act());
    const Tensor gamma = random({kIn}, "gamma", 0.1f, 1.0f);
    const TileSet xs = h.load("x", x, act()), dys = h.load("dy", dy, act());
    const builder::Buffer gamma_row = h.broadcast("gamma", gamma.values, isa::DType::Fp32);
    TileSet dx = device::allocate_tiles(h.core(), kTokens, kIn, act(), "dx");
    TileSet dgamma = device::allocate_tiles(h.core(), 1, kIn, isa::DType::Fp32, "dgamma");
    TileSet dbeta = device::allocate_tiles(h.core(), 1, kIn, isa::DType::Fp32, "dbeta");
    train::layer_norm_backward(h.ctx(), xs, dys, gamma_row, 1e-12f, {&dx, &dgamma, &dbeta});
    h.store("dx", dx);
    h.store("dgamma", dgamma);
    h.store("dbeta", dbeta);
    const auto run = h.run();
    const reference::LayerNormGradients want = reference::layer_norm_backward(x, gamma, dy, 1e-12);
    expect_close(run->read("dx"), want.input, act(), "layernorm dx");
    expect_close(run->read("dgamma"), want.gamma, isa::DType::Fp32, "layernorm dgamma");
    expect_close(run->read("dbeta"), want.beta, isa::DType::Fp32, "layernorm dbeta");
}

// Softmax cross-entropy over `classes`, over more rows than one partition tile.
void BackwardKernel::expect_cross_entropy(uint32_t classes) {
    KernelHarness h = harness();
    const Tensor logits = random({kTokens, classes}, fmt::format("logits{}", classes), 2.0f);
    std::vector<int32_t> labels(kTokens);
    Tensor label_values({kTokens, 1});
    for (uint32_t r = 0; r < kTokens; ++r) {
        labels[r] = int32_t((r * 7 + 3) % classes);
        label_values.values[r] = float(labels[r]);
    }
    const TileSet zs = h.load("logits", logits, isa::DType::Fp32);
    const TileSet ys = h.load("labels", label_values, isa::DType::Fp32);
    const uint32_t index = train::add_index_row(h.program(), "class index", classes);
    const builder::Buffer class_row = train::load_broadcast_row(h.ctx(), h.io(), index, classes, "class row");
    TileSet dz = device::allocate_tiles(h.core(), kTokens, classes, isa::DType::Fp32, "dlogits");
    TileSet loss = device::allocate_tiles(h.core(), 1, 1, isa::DType::Fp32, "loss");
    train::cross_entropy(h.ctx(), zs, ys, class_row, dz, loss);
    h.store("dlogits", dz);
    h.store("loss", loss);
    const auto run = h.run();
    const reference::CrossEntropy want = reference::cross_entropy(logits, labels);
    expect_close(run->read("loss"), Tensor({1, 1}, {float(want.loss)}), isa::DType::Fp32,
                 fmt::format("cross-entropy loss over {} classes", classes));
    expect_close(run->read("dlogits"), want.logits, isa::DType::Fp32,
                 fmt::format("cross-entropy dlogits over {} classes", classes));
}

TEST_P(BackwardKernel, CrossEntropyOfSequenceClassification) { expect_cross_entropy(3); }
// A masked-LM-like width: the classes of a row span several vector-engine passes.
TEST_P(BackwardKernel, CrossEntropyOverSevenHundredClasses) { expect_cross_entropy(700); }

// 300 table rows (three blocks, the last partial), ids repeated within the batch.
TEST_P(BackwardKernel, EmbeddingScatterAddOfRows) {
    KernelHarness h = harness();
    constexpr uint32_t kRows = 300;
    std::vector<int32_t> ids(kTokens);
    Tensor id_values({kTokens, 1});
    for (uint32_t t = 0; t < kTokens; ++t) {
        ids[t] = int32_t((t * t * 37 + 11) % kRows);
        if (t % 5 == 0) ids[t] = 7;  // many tokens on one row
        id_values.values[t] = float(ids[t]);
    }
    const Tensor dy = rounded(random({kTokens, kIn}, "dy"), mm());
    const TileSet id_set = h.load("ids", id_values, isa::DType::Fp32), dys = h.load("dy", dy, mm());
    const uint32_t index = train::add_index_row(h.program(), "row index", h.ctx().partitions());
    const builder::Buffer index_row = train::load_broadcast_row(h.ctx(), h.io(), index, h.ctx().partitions(), "index row");
    TileSet grad = device::allocate_tiles(h.core(), kRows, kIn, isa::DType::Fp32, "dtable");
    train::embedding_backward(h.ctx(), id_set, dys, index_row, grad);
    h.store("dtable", grad);
    expect_close(h.run()->read("dtable"), reference::embedding_backward(ids, dy, kRows), isa::DType::Fp32,
                 "scatter-add of dy rows");
}

// Attention's gradients over `valid.size()` sequences of `seq` tokens, `heads` heads of 64, sequence
// b's keys from valid[b] on masked.
void BackwardKernel::expect_attention_gradients(uint32_t seq, uint32_t heads, const std::vector<uint32_t>& valid) {
    KernelHarness h = harness();
    const uint32_t batch = uint32_t(valid.size()), tokens = batch * seq, width = heads * 64;
    const Tensor q = rounded(random({tokens, width}, "q", 1.0f), mm());
    const Tensor k = rounded(random({tokens, width}, "k", 1.0f), mm());
    const Tensor v = rounded(random({tokens, width}, "v", 1.0f), mm());
    const Tensor dc = rounded(random({tokens, width}, "dcontext", 1.0f), mm());
    std::vector<int32_t> mask(tokens, 1);
    for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t s = valid[b]; s < seq; ++s) mask[b * seq + s] = 0;
    Tensor mask_values({batch, seq});
    for (uint32_t i = 0; i < tokens; ++i) mask_values.values[i] = float(mask[i]);

    const device::AttentionShape shape{batch, seq, heads, 64};
    const uint32_t mask_tensor = h.dram("attention_mask", mask_values, isa::DType::Int32);
    device::AttentionScratch forward_scratch = device::allocate_attention_scratch(h.core(), shape, h.dtypes());
    const builder::Buffer staging = h.core().sbuf(tokens * 4, "staging");
    device::build_attention_mask(h.ctx(), shape, mask_tensor, 0, h.io(), staging, forward_scratch);
    const TileSet qs = h.load("q", q, mm()), ks = h.load("k", k, mm()), dcs = h.load("dc", dc, mm());
    const TileSet q_t = h.load("q^T", testing::transposed(q), mm()), k_t = h.load("k^T", testing::transposed(k), mm());
    const TileSet v_t = h.load("v^T", testing::transposed(v), mm()), dc_t = h.load("dc^T", testing::transposed(dc), mm());
    TileSet dq_t = device::allocate_tiles(h.core(), width, tokens, isa::DType::Fp32, "dq^T");
    TileSet dk_t = device::allocate_tiles(h.core(), width, tokens, isa::DType::Fp32, "dk^T");
    TileSet dv_t = device::allocate_tiles(h.core(), width, tokens, isa::DType::Fp32, "dv^T");
    train::attention_backward(h.ctx(), shape, {&qs, &ks, &q_t, &k_t, &v_t, &dcs, &dc_t, forward_scratch.mask},
                              {&dq_t, &dk_t, &dv_t});
    h.store("dq^T", dq_t);
    h.store("dk^T", dk_t);
    h.store("dv^T", dv_t);
    const auto run = h.run();
    const reference::AttentionGradients want = reference::attention_backward(
        q, k, v, reference::attention_mask_bias(mask, batch, seq), dc, batch, seq, heads);
    const std::string what = fmt::format("attention (seq {}) ", seq);
    expect_close(run->read("dq^T"), testing::transposed(want.query), isa::DType::Fp32, what + "dQ");
    expect_close(run->read("dk^T"), testing::transposed(want.key), isa::DType::Fp32, what + "dK");
    expect_close(run->read("dv^T"), testing::transposed(want.value), isa::DType::Fp32, what + "dV");
}

// Two sequences of 80 tokens (the second straddles the token tiles), 3 heads of 64, both padded.
TEST_P(BackwardKernel, AttentionQueryKeyAndValueGradients) { expect_attention_gradients(80, 3, {70, 77}); }

// Phase 2's sequence: 512 tokens, four 128-token blocks of queries and of keys (each softmax row over
// all four), padded in the last block.
TEST_P(BackwardKernel, AttentionGradientsOverFourKeyBlocks) { expect_attention_gradients(512, 2, {450}); }

// Two sequences of 256 (two blocks each), the second's padding starting in its first block.
TEST_P(BackwardKernel, AttentionGradientsOfTwoSequencesOfTwoBlocks) { expect_attention_gradients(256, 1, {256, 100}); }

// Four sequences of 40 tokens, 3 labels: classifier, tanh, pooler and the [CLS] rows of dhidden.
TEST_P(BackwardKernel, ClassifierHeadDownToTheClsTokens) {
    KernelHarness h = harness();
    constexpr uint32_t kBatch = 4, kSeq = kTokens / kBatch, kLabels = 3;
    const Tensor hidden = rounded(random({kTokens, kIn}, "hidden", 1.0f), mm());
    const LinearWeights pooler{rounded(random({kIn, kIn}, "wp", 0.08f), mm()), random({kIn}, "bp", 0.1f)};
    const LinearWeights classifier{rounded(random({kLabels, kIn}, "wc", 0.08f), mm()), random({kLabels}, "bc", 0.1f)};
    const Tensor cls = reference::first_token_rows(hidden, kBatch, kSeq);
    const Tensor pooled = rounded(reference::pooler(hidden, pooler, kBatch, kSeq), mm());
    const Tensor dlogits = rounded(random({kBatch, kLabels}, "dlogits"), mm());
    Tensor positions({kBatch, 1});
    for (uint32_t b = 0; b < kBatch; ++b) positions.values[b] = float(b * kSeq);

    const TileSet cls_set = h.load("cls", cls, mm()), pooled_set = h.load("pooled", pooled, mm());
    const TileSet dlogits_set = h.load("dlogits", dlogits, mm());
    const TileSet position_set = h.load("positions", positions, isa::DType::Fp32);
    const uint32_t index = train::add_index_row(h.program(), "token index", h.ctx().partitions());
    train::ClassifierHeadInputs in{&cls_set, &pooled_set, &dlogits_set, &position_set,
                                   {h.dram("wp", pooler.weight, mm()), kIn, kIn, mm()},
                                   {h.dram("wc", classifier.weight, mm()), kLabels, kIn, mm()},
                                   train::load_broadcast_row(h.ctx(), h.io(), index, h.ctx().partitions(), "index row")};
    auto fp32 = [&](uint32_t rows, uint32_t columns, const std::string& name) {
        return device::allocate_tiles(h.core(), rows, columns, isa::DType::Fp32, name);
    };
    TileSet dhidden = fp32(kTokens, kIn, "dhidden"), dwp = fp32(kIn, kIn, "dwp"), dbp = fp32(1, kIn, "dbp");
    TileSet dwc = fp32(kLabels, kIn, "dwc"), dbc = fp32(1, kLabels, "dbc");
    train::classifier_head_backward(h.ctx(), in, {&dhidden, &dwp, &dbp, &dwc, &dbc});
    for (auto [name, set] : {std::pair{"dhidden", &dhidden}, {"dwp", &dwp}, {"dbp", &dbp}, {"dwc", &dwc}, {"dbc", &dbc}})
        h.store(name, *set);
    const auto run = h.run();
    const reference::ClassifierHeadGradients want =
        reference::classifier_head_backward(hidden, pooler, classifier, dlogits, kBatch, kSeq);
    expect_close(run->read("dhidden"), want.hidden, isa::DType::Fp32, "head: dhidden ([CLS] rows)");
    expect_close(run->read("dwp"), want.pooler.weight, isa::DType::Fp32, "head: dW pooler");
    expect_close(run->read("dbp"), want.pooler.bias, isa::DType::Fp32, "head: db pooler");
    expect_close(run->read("dwc"), want.classifier.weight, isa::DType::Fp32, "head: dW classifier");
    expect_close(run->read("dbc"), want.classifier.bias, isa::DType::Fp32, "head: db classifier");
}

// One AdamW step (the third, so the bias corrections matter) with fp32 m and v, the parameter in the
// program's activation dtype. In fp32 the update p_new - p_old itself is compared (relative 1e-4 of the
// update, not of p, which would hide it); in bf16 the parameter (whose ulp is close to the update).
TEST_P(BackwardKernel, AdamWStepWithFp32States) {
    KernelHarness h = harness();
    const reference::AdamWHyper hyper{0.01, 0.9, 0.999, 1e-8, 0.01};
    const uint32_t t = 3;
    const Tensor p = rounded(random({kTokens, kIn}, "p"), act()), g = rounded(random({kTokens, kIn}, "g"), act());
    const Tensor m = random({kTokens, kIn}, "m", 0.1f);
    Tensor v = random({kTokens, kIn}, "v", 0.3f);
    for (float& x : v.values) x *= x;
    TileSet ps = h.load("p", p, act());
    const TileSet gs = h.load("g", g, act());
    TileSet ms = h.load("m", m, isa::DType::Fp32), vs = h.load("v", v, isa::DType::Fp32);
    const std::vector<float> scalars = train::adamw_step_scalars(hyper.lr, hyper.weight_decay, hyper.beta1, hyper.beta2, t);
    const uint32_t scalar_tensor = h.dram("adamw scalars", Tensor({1, scalars.size()}, scalars), isa::DType::Fp32);
    const builder::Buffer scalar_row =
        train::load_broadcast_row(h.ctx(), h.io(), scalar_tensor, train::kAdamWScalars, "adamw scalars");
    train::adamw(h.ctx(), ps, gs, ms, vs, scalar_row, {float(hyper.beta1), float(hyper.beta2), float(hyper.eps)});
    h.store("new p", ps);
    h.store("new m", ms);
    h.store("new v", vs);
    const auto run = h.run();
    Tensor want_p = p, want_m = m, want_v = v;
    reference::adamw_step(want_p, want_m, want_v, g, hyper, t);
    expect_close(run->read("new m"), want_m, isa::DType::Fp32, "AdamW m");
    expect_close(run->read("new v"), want_v, isa::DType::Fp32, "AdamW v");
    if (act() == isa::DType::Fp32) {
        Tensor got_update = p, want_update = p;
        const std::vector<float> got = run->read("new p");
        for (size_t i = 0; i < p.size(); ++i) {
            got_update.values[i] = got[i] - p.values[i];
            want_update.values[i] = want_p.values[i] - p.values[i];
        }
        expect_close(got_update.values, want_update, isa::DType::Fp32, "AdamW update p_new - p");
    } else {
        expect_close(run->read("new p"), want_p, act(), "AdamW p");
    }
}

// One encoder layer (hidden 128, 2 heads, FFN 256; two sequences of 80, padded) from its output's
// gradient to its input's and every parameter's, against reference::encoder_layer_backward. The
// forward activations the backward reads are the reference's, stored in the matmul dtype.
TEST_P(BackwardKernel, EncoderLayerAllGradients) {
    KernelHarness h = harness();
    constexpr uint32_t kBatch = 2, kSeq = 80, kHidden = 128, kHeads = 2, kInter = 256;
    BertConfig config;
    config.hidden_size = kHidden;
    config.num_attention_heads = kHeads;
    config.intermediate_size = kInter;
    BertLayerWeights w;
    auto linear = [&](uint32_t out, uint32_t in, const std::string& name) {
        return LinearWeights{rounded(random({out, in}, name + ".w", 0.08f), mm()), random({out}, name + ".b", 0.1f)};
    };
    auto norm = [&](const std::string& name) {
        return LayerNormWeights{random({kHidden}, name + ".g", 0.1f, 1.0f), random({kHidden}, name + ".b", 0.1f)};
    };
    w.query = linear(kHidden, kHidden, "q");
    w.key = linear(kHidden, kHidden, "k");
    w.value = linear(kHidden, kHidden, "v");
    w.attention_output = linear(kHidden, kHidden, "o");
    w.attention_layer_norm = norm("ln1");
    w.intermediate = linear(kInter, kHidden, "i");
    w.output = linear(kHidden, kInter, "f");
    w.output_layer_norm = norm("ln2");
    std::vector<int32_t> mask(kTokens, 1);
    for (uint32_t s = 70; s < kSeq; ++s) mask[s] = 0;
    Tensor mask_values({kBatch, kSeq});
    for (uint32_t i = 0; i < kTokens; ++i) mask_values.values[i] = float(mask[i]);
    const Tensor mask_bias = reference::attention_mask_bias(mask, kBatch, kSeq);
    const Tensor x = rounded(random({kTokens, kHidden}, "x", 1.0f), mm());
    const Tensor dy = rounded(random({kTokens, kHidden}, "dy", 0.5f), mm());
    const reference::EncoderLayerActivations a =
        reference::encoder_layer_activations(x, w, config, mask_bias, kBatch, kSeq);
    BertLayerWeights want;
    const Tensor want_dx = reference::encoder_layer_backward(a, w, config, mask_bias, dy, kBatch, kSeq, want);

    const device::AttentionShape shape{kBatch, kSeq, kHeads, kHidden / kHeads};
    device::AttentionScratch forward_scratch = device::allocate_attention_scratch(h.core(), shape, h.dtypes());
    const builder::Buffer staging = h.core().sbuf(kTokens * 4, "staging");
    device::build_attention_mask(h.ctx(), shape, h.dram("attention_mask", mask_values, isa::DType::Int32), 0, h.io(),
                                 staging, forward_scratch);
    auto load = [&](const std::string& name, const Tensor& t) { return h.load(name, rounded(t, mm()), mm()); };
    const TileSet xs = load("x", a.x), qs = load("q", a.q), ks = load("k", a.k);
    const TileSet q_t = load("q^T", testing::transposed(a.q)), k_t = load("k^T", testing::transposed(a.k));
    const TileSet v_t = load("v^T", testing::transposed(a.v)), context = load("context", a.context);
    const TileSet attention_sum = load("attention sum", a.attention_sum), attended = load("attended", a.attended);
    const TileSet inter_in = load("intermediate in", a.intermediate_in), inter = load("intermediate", a.intermediate);
    const TileSet output_sum = load("output sum", a.output_sum), dys = load("dy", dy);
    auto matrix = [&](const std::string& name, const LinearWeights& l) {
        return device::DramMatrix{h.dram(name, l.weight, mm()), uint32_t(l.weight.rows()), uint32_t(l.weight.cols()), mm()};
    };
    const train::EncoderLayerParameters params{
        matrix("wq", w.query), matrix("wk", w.key), matrix("wv", w.value), matrix("wo", w.attention_output),
        matrix("w1", w.intermediate), matrix("w2", w.output),
        h.broadcast("gamma1", w.attention_layer_norm.gamma.values, isa::DType::Fp32),
        h.broadcast("gamma2", w.output_layer_norm.gamma.values, isa::DType::Fp32), float(config.layer_norm_eps),
        forward_scratch.mask};
    train::EncoderLayerGradientTiles g = train::encoder_layer_backward(
        h.ctx(), shape,
        {&xs, &qs, &ks, &q_t, &k_t, &v_t, &context, &attention_sum, &attended, &inter_in, &inter, &output_sum}, params,
        dys);
    const std::vector<std::tuple<std::string, const TileSet*, const Tensor*>> outputs = {
        {"dx", &g.input, &want_dx},
        {"dWq", &g.query.weight, &want.query.weight}, {"dbq", &g.query.bias, &want.query.bias},
        {"dWk", &g.key.weight, &want.key.weight},
        {"dWv", &g.value.weight, &want.value.weight}, {"dbv", &g.value.bias, &want.value.bias},
        {"dWo", &g.attention_output.weight, &want.attention_output.weight},
        {"dbo", &g.attention_output.bias, &want.attention_output.bias},
        {"dW1", &g.intermediate.weight, &want.intermediate.weight}, {"db1", &g.intermediate.bias, &want.intermediate.bias},
        {"dW2", &g.output.weight, &want.output.weight}, {"db2", &g.output.bias, &want.output.bias},
        {"dgamma1", &g.attention_norm.gamma, &want.attention_layer_norm.gamma},
        {"dbeta1", &g.attention_norm.beta, &want.attention_layer_norm.beta},
        {"dgamma2", &g.output_norm.gamma, &want.output_layer_norm.gamma},
        {"dbeta2", &g.output_norm.beta, &want.output_layer_norm.beta}};
    for (const auto& [name, set, tensor] : outputs) h.store(name, *set);
    h.store("dbk", g.key.bias);
    const auto run = h.run();
    for (const auto& [name, set, tensor] : outputs)
        expect_close(run->read(name), *tensor, set->dtype, "encoder layer " + name);
    // The key bias adds the same amount to every score of a row, which softmax ignores: its gradient
    // is zero, up to rounding - small against the query bias's.
    double dbk = 0, dbq = 0;
    for (float v : run->read("dbk")) dbk = std::max(dbk, double(std::fabs(v)));
    for (float v : want.query.bias.values) dbq = std::max(dbq, double(std::fabs(v)));
    std::cout << "encoder layer: max |dbk| " << dbk << " against max |dbq| " << dbq << "\n";
    EXPECT_LT(dbk, tolerance(worst(mm())) * dbq);
}

INSTANTIATE_TEST_SUITE_P(Kernels, BackwardKernel,
                         ::testing::Values(Case{"trn1.2xlarge", Precision::Fp32}, Case{"trn1.2xlarge", Precision::Bf16},
                                           Case{"trn2.48xlarge", Precision::Bf16}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                             std::string name = info.param.instance + "_" + std::string(device::name_of(info.param.precision));
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

}  // namespace
}  // namespace nsim::kernels
