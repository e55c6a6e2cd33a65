// Each hand-scheduled kernel alone on a simulated NeuronCore against its plain C++ reference
// (kernels/reference), for several generations and data types. Shapes are ragged on purpose:
// 160 tokens (a full and a partial token tile; the second sequence straddles them), hidden 192
// (a full and a half feature tile), FFN 320.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "bert/random_weights.h"
#include "device/attention_kernel.h"
#include "device/embedding_kernel.h"
#include "device/layer_norm_kernel.h"
#include "device/linear_kernels.h"
#include "kernel_harness.h"
#include "reference/activations.h"
#include "reference/attention.h"
#include "reference/classifier_head.h"
#include "reference/embeddings.h"
#include "reference/encoder_layer.h"
#include "reference/layer_norm.h"
#include "reference/linear.h"

namespace nsim::kernels {
namespace {

using device::Precision;
using device::TileSet;
using testing::KernelHarness;
using testing::rounded;
using testing::transposed;

constexpr uint32_t kBatch = 2, kSeq = 80, kTokens = kBatch * kSeq, kHidden = 192, kHeads = 3, kInter = 320;

struct KernelCase {
    std::string instance;
    Precision precision;
};

std::ostream& operator<<(std::ostream& os, const KernelCase& c) { return os << c.instance << "_" << device::name_of(c.precision); }

Tensor random(Shape shape, const std::string& name, float stddev = 0.5f, float mean = 0.0f) {
    Tensor t(std::move(shape));
    fill_random_normal(t, 11, name, mean, stddev);
    return t;
}

LinearWeights random_linear(uint32_t out, uint32_t in, const std::string& name) {
    return {random({out, in}, name + ".weight", 0.08f), random({out}, name + ".bias", 0.1f)};
}

LayerNormWeights random_norm(uint32_t n, const std::string& name) {
    return {random({n}, name + ".gamma", 0.1f, 1.0f), random({n}, name + ".beta", 0.1f)};
}

class DeviceKernel : public ::testing::TestWithParam<KernelCase> {
protected:
    Precision precision() const { return GetParam().precision; }
    isa::DType mm() const { return device::dtypes_for(precision()).matmul; }
    isa::DType act() const { return device::dtypes_for(precision()).activation; }

    // Tolerance (relative to the largest reference value) for a result last stored as `dtype`
    // after passing through matmul operands of the matmul dtype.
    double tolerance(isa::DType stored) const {
        const isa::DType worst = (mm() == isa::DType::Bf16 || stored == isa::DType::Bf16) ? isa::DType::Bf16
                                 : (mm() == isa::DType::Fp16 || stored == isa::DType::Fp16) ? isa::DType::Fp16
                                                                                            : isa::DType::Fp32;
        return worst == isa::DType::Bf16 ? 2e-2 : worst == isa::DType::Fp16 ? 3e-3 : 2e-5;
    }

    LinearWeights rounded_linear(const LinearWeights& w) const { return {rounded(w.weight, mm()), w.bias}; }

    void expect_feature_major_linear(KernelHarness& h, uint32_t tokens, uint32_t in, uint32_t out, const std::string& name);

    void expect_close(const std::vector<float>& got, const Tensor& want, isa::DType stored, const std::string& what) {
        const double error = testing::relative_error(got, want.values);
        std::cout << GetParam() << " " << what << ": relative error " << error << "\n";
        EXPECT_LT(error, tolerance(stored)) << what;
    }
};

// y^T = (x W^T + b)^T by feature_major_linear over `tokens` tokens, against the reference.
void DeviceKernel::expect_feature_major_linear(KernelHarness& h, uint32_t tokens, uint32_t in, uint32_t out,
                                               const std::string& name) {
    const Tensor x = rounded(random({tokens, in}, "x"), mm());
    const LinearWeights w = rounded_linear(random_linear(out, in, name));
    TileSet x_t = h.load("x^T", transposed(x), mm());
    TileSet y_t = device::allocate_tiles(h.core(), out, tokens, mm(), name + "^T");
    device::feature_major_linear(h.ctx(), x_t, h.weights("w" + name, w.weight), h.columns("b" + name, w.bias),
                                 isa::ActivationFunction::Identity, y_t);
    h.store("out", y_t);
    expect_close(h.run()->read("out"), transposed(reference::linear(x, w)), mm(),
                 fmt::format("{}^T over {} tokens", name, tokens));
}

TEST_P(DeviceKernel, QueryProjectionFeatureMajorWithBias) {
    KernelHarness h(GetParam().instance, precision());
    expect_feature_major_linear(h, kTokens, kHidden, kHidden, "q");
}

// More tokens than the whole PSUM ring holds for one output tile (a large batch on one core): the
// tokens go in passes; before, the last chunks took the ring round onto the first ones' banks.
TEST_P(DeviceKernel, FeatureMajorLinearOverMoreTokensThanThePsumRingHolds) {
    KernelHarness h(GetParam().instance, precision());
    const uint32_t ring_tokens = h.ctx().psum.banks() * std::min(h.ctx().max_moving(), h.ctx().bank_fp32_elements());
    expect_feature_major_linear(h, ring_tokens + 160, 64, 160, "wide");
}

TEST_P(DeviceKernel, FeedForwardFirstHalfWithGelu) {
    KernelHarness h(GetParam().instance, precision());
    const Tensor x = rounded(random({kTokens, kHidden}, "x"), mm());
    const LinearWeights w = rounded_linear(random_linear(kInter, kHidden, "ffn1"));
    TileSet x_t = h.load("x^T", transposed(x), mm());
    TileSet out = device::allocate_tiles(h.core(), kInter, kTokens, mm(), "ffn^T");
    device::feature_major_linear(h.ctx(), x_t, h.weights("w1", w.weight), h.columns("b1", w.bias),
                                 isa::ActivationFunction::Gelu, out);
    h.store("out", out);
    const Tensor want = reference::feed_forward_intermediate(x, w, HiddenActivation::GeluErf);
    expect_close(h.run()->read("out"), transposed(want), mm(), "gelu(x W1^T + b1)^T");
}

TEST_P(DeviceKernel, ValueProjectionTokenMajor) {
    KernelHarness h(GetParam().instance, precision());
    const Tensor x = rounded(random({kTokens, kHidden}, "x"), mm());
    LinearWeights w = rounded_linear(random_linear(kHidden, kHidden, "v"));
    w.bias = Tensor({kHidden});  // the value bias is added after attention (attention_kernel.h)
    TileSet x_t = h.load("x^T", transposed(x), mm());
    TileSet v = device::allocate_tiles(h.core(), kTokens, kHidden, mm(), "v");
    device::token_major_linear(h.ctx(), x_t, h.weights("wv", w.weight), v, device::TokenEpilogue::Store);
    h.store("out", v);
    expect_close(h.run()->read("out"), reference::linear(x, w), mm(), "x Wv^T");
}

// Weight blocks several matmuls wide (long DMA rows per partition): each block feeds one matmul per
// column chunk, the last chunk ragged, into accumulators of as many PSUM banks as half the ring has.
TEST_P(DeviceKernel, TokenMajorLinearOverWeightBlocksWiderThanOneMatmul) {
    KernelHarness h(GetParam().instance, precision(), 4);
    constexpr uint32_t kWide = 1200;
    const Tensor x = rounded(random({kTokens, kHidden}, "x"), mm());
    LinearWeights w = rounded_linear(random_linear(kWide, kHidden, "wide"));
    w.bias = Tensor({kWide});
    TileSet x_t = h.load("x^T", transposed(x), mm());
    TileSet y = device::allocate_tiles(h.core(), kTokens, kWide, mm(), "y");
    device::token_major_linear(h.ctx(), x_t, h.weights("w", w.weight), y, device::TokenEpilogue::Store);
    h.store("out", y);
    expect_close(h.run()->read("out"), reference::linear(x, w), mm(), "x W^T, wide blocks");
}

// Weights laid out in column panels as the BERT program writes them (DramMatrix::panel_columns):
// 2 k-tiles, panels narrower than the kernels' blocks and a ragged last one, each block one panel.
TEST_P(DeviceKernel, TokenMajorLinearFromWeightPanels) {
    KernelHarness h(GetParam().instance, precision(), 4);
    const uint32_t in = 2 * device::partition_tile_rows(h.core().spec()), out = 1200, panel = 384;
    const Tensor x = rounded(random({kTokens, in}, "x"), mm());
    LinearWeights w = rounded_linear(random_linear(out, in, "panels"));
    w.bias = Tensor({out});
    TileSet x_t = h.load("x^T", transposed(x), mm());
    TileSet y = device::allocate_tiles(h.core(), kTokens, out, mm(), "y");
    const device::DramMatrix weights = h.weights_in_panels("w", w.weight, panel);
    ASSERT_EQ(weights.blocks(device::token_major_block_columns(h.ctx(), kTokens)).size(), 4u) << "one block per panel";
    device::token_major_linear(h.ctx(), x_t, weights, y, device::TokenEpilogue::Store);
    h.store("out", y);
    expect_close(h.run()->read("out"), reference::linear(x, w), mm(), "x W^T, weight panels");
}

TEST_P(DeviceKernel, FeatureMajorLinearFromWeightPanels) {
    KernelHarness h(GetParam().instance, precision(), 4);
    const uint32_t tile = device::partition_tile_rows(h.core().spec());
    const uint32_t in = 2 * tile, out = 5 * tile, panel = 2 * tile;
    const Tensor x = rounded(random({kTokens, in}, "x"), mm());
    const LinearWeights w = rounded_linear(random_linear(out, in, "panels"));
    TileSet x_t = h.load("x^T", transposed(x), mm());
    TileSet y = device::allocate_tiles(h.core(), out, kTokens, mm(), "y^T");
    const device::DramMatrix weights = h.weights_in_panels("w", w.weight, panel);
    device::feature_major_linear(h.ctx(), x_t, weights, h.columns("b", w.bias), isa::ActivationFunction::Identity, y);
    h.store("out", y);
    expect_close(h.run()->read("out"), transposed(reference::linear(x, w)), mm(), "(x W^T + b)^T, weight panels");
}

TEST_P(DeviceKernel, OutputProjectionResidualAndLayerNorm) {
    KernelHarness h(GetParam().instance, precision());
    const Tensor context = rounded(random({kTokens, kHidden}, "context"), mm());
    const Tensor residual = rounded(random({kTokens, kHidden}, "residual", 1.0f), act());
    const LinearWeights w = rounded_linear(random_linear(kHidden, kHidden, "o"));
    const LayerNormWeights norm = random_norm(kHidden, "norm");
    TileSet context_t = h.load("context^T", transposed(context), mm());
    // The program folds the projection's bias into the residual (layer_norm_kernel.h).
    TileSet resid = h.load("residual+bias", reference::add(residual, [&] {
                               Tensor b({kTokens, kHidden});
                               for (size_t i = 0; i < b.size(); ++i) b.values[i] = w.bias.values[i % kHidden];
                               return b;
                           }()),
                           act());
    TileSet feature = device::allocate_tiles(h.core(), kHidden, kTokens, mm(), "y^T");
    device::token_major_linear(h.ctx(), context_t, h.weights("wo", w.weight), resid, device::TokenEpilogue::AddInto);
    device::LayerNormScratch scratch = device::allocate_layer_norm_scratch(h.core(), kHidden, h.dtypes());
    device::LayerNormParams p;
    p.gamma_row = h.broadcast("gamma", norm.gamma.values, act());
    p.beta_plus_row = h.broadcast("beta", norm.beta.values, act());
    p.gamma_column = h.columns("gamma columns", norm.gamma);
    p.beta_column = h.columns("beta columns", norm.beta);
    device::layer_norm(h.ctx(), resid, feature, scratch, p);
    h.store("tokens", resid);
    h.store("features", feature);
    const auto run = h.run();
    const Tensor want = reference::projection_residual_layer_norm(context, w, residual, norm, 1e-12);
    expect_close(run->read("tokens"), want, act(), "LN(x Wo^T + bo + residual)");
    expect_close(run->read("features"), transposed(want), mm(), "LN(...)^T");
}

TEST_P(DeviceKernel, AttentionScoresMaskSoftmaxContext) {
    KernelHarness h(GetParam().instance, precision());
    const Tensor q = rounded(random({kTokens, kHidden}, "q", 1.0f), mm());
    const Tensor k = rounded(random({kTokens, kHidden}, "k", 1.0f), mm());
    const Tensor v = rounded(random({kTokens, kHidden}, "v", 1.0f), mm());
    const Tensor bv = random({kHidden}, "bv", 0.2f);
    std::vector<int32_t> mask(kTokens, 1);
    for (uint32_t s = 70; s < kSeq; ++s) mask[s] = 0;            // first sequence padded
    for (uint32_t s = 77; s < kSeq; ++s) mask[kSeq + s] = 0;     // second one a little
    Tensor mask_values({kBatch, kSeq});
    for (uint32_t i = 0; i < kTokens; ++i) mask_values.values[i] = float(mask[i]);
    const uint32_t mask_tensor = h.dram("attention_mask", mask_values, isa::DType::Int32);

    TileSet q_t = h.load("q^T", transposed(q), mm()), k_t = h.load("k^T", transposed(k), mm());
    TileSet v_tiles = h.load("v", v, mm());
    TileSet context_t = device::allocate_tiles(h.core(), kHidden, kTokens, mm(), "context^T");
    const device::AttentionShape shape{kBatch, kSeq, kHeads, kHidden / kHeads};
    device::AttentionScratch scratch = device::allocate_attention_scratch(h.core(), shape, h.dtypes());
    const builder::Buffer staging = h.core().sbuf(kTokens * 4, "staging");
    device::build_attention_mask(h.ctx(), shape, mask_tensor, 0, h.io(), staging, scratch);
    device::self_attention(h.ctx(), shape, q_t, k_t, v_tiles, h.columns("bv", bv), context_t, scratch);
    h.store("out", context_t);

    Tensor v_biased = v;
    for (size_t i = 0; i < v_biased.size(); ++i) v_biased.values[i] += bv.values[i % kHidden];
    const Tensor probs =
        reference::attention_probabilities(q, k, reference::attention_mask_bias(mask, kBatch, kSeq), kBatch, kSeq, kHeads);
    const Tensor want = reference::attention_context(probs, v_biased, kBatch, kSeq, kHeads);
    expect_close(h.run()->read("out"), transposed(want), mm(), "softmax(QK^T/sqrt(d) + mask) V");
}

TEST_P(DeviceKernel, DeviceEmbeddingLookupAndLayerNorm) {
    KernelHarness h(GetParam().instance, precision());
    constexpr uint32_t kVocab = 300, kTypes = 2;
    BertEmbeddingWeights e;
    e.word = rounded(random({kVocab, kHidden}, "word"), act());
    e.token_type = rounded(random({kTypes, kHidden}, "type"), act());
    e.position = rounded(random({kSeq, kHidden}, "position"), act());
    e.layer_norm = random_norm(kHidden, "embedding norm");
    TokenBatch tokens;
    tokens.batch = kBatch;
    tokens.seq_len = kSeq;
    Tensor ids({kBatch, kSeq}), types({kBatch, kSeq});
    for (uint32_t i = 0; i < kTokens; ++i) {
        tokens.input_ids.push_back(int32_t((i * 97 + 3) % kVocab));
        tokens.token_type_ids.push_back(i % kSeq > 30 ? 1 : 0);
        tokens.attention_mask.push_back(1);
        ids.values[i] = float(tokens.input_ids[i]);
        types.values[i] = float(tokens.token_type_ids[i]);
    }
    device::EmbeddingTensors tables;
    tables.word = {h.dram("word", e.word, act()), kVocab, kHidden, act()};
    tables.token_type = {h.dram("type", e.token_type, act()), kTypes, kHidden, act()};
    tables.position = {h.dram("position", e.position, act()), kSeq, kHidden, act()};

    TileSet resid = device::allocate_tiles(h.core(), kTokens, kHidden, act(), "embeddings");
    TileSet feature = device::allocate_tiles(h.core(), kHidden, kTokens, mm(), "embeddings^T");
    const builder::Buffer region = h.core().sbuf_region(device::embedding_scratch_bytes(kHidden, h.dtypes()), "embedding scratch");
    device::EmbeddingScratch scratch = device::alias_embedding_scratch(h.core(), region, 0, kHidden, h.dtypes());
    device::device_embedding(h.ctx(), tables, h.dram("ids", ids, isa::DType::Int32), h.dram("types", types, isa::DType::Int32),
                             0, kBatch, kSeq, h.io(), scratch, resid);
    device::LayerNormScratch ln = device::allocate_layer_norm_scratch(h.core(), kHidden, h.dtypes());
    device::LayerNormParams p;
    p.gamma_row = h.broadcast("gamma", e.layer_norm.gamma.values, act());
    p.beta_plus_row = h.broadcast("beta", e.layer_norm.beta.values, act());
    p.gamma_column = h.columns("gamma columns", e.layer_norm.gamma);
    p.beta_column = h.columns("beta columns", e.layer_norm.beta);
    device::layer_norm(h.ctx(), resid, feature, ln, p);
    h.store("out", resid);
    expect_close(h.run()->read("out"), reference::embeddings(e, tokens, 1e-12), act(), "LN(word + position + type)");
}

TEST_P(DeviceKernel, PoolerTanhAndClassifier) {
    KernelHarness h(GetParam().instance, precision());
    const Tensor hidden = rounded(random({kTokens, kHidden}, "hidden"), mm());
    const LinearWeights pooler = rounded_linear(random_linear(kHidden, kHidden, "pooler"));
    const LinearWeights classifier = rounded_linear(random_linear(3, kHidden, "classifier"));
    TileSet hidden_t = h.load("hidden^T", transposed(hidden), mm());
    TileSet pooled_t = device::allocate_tiles(h.core(), kHidden, kBatch, mm(), "pooled^T");
    TileSet logits_t = device::allocate_tiles(h.core(), 3, kBatch, isa::DType::Fp32, "logits^T");
    device::feature_major_linear(h.ctx(), hidden_t, h.weights("wp", pooler.weight), h.columns("bp", pooler.bias),
                                 isa::ActivationFunction::Tanh, pooled_t, device::Range{0, kBatch}, kSeq);
    device::feature_major_linear(h.ctx(), pooled_t, h.weights("wc", classifier.weight), h.columns("bc", classifier.bias),
                                 isa::ActivationFunction::Identity, logits_t);
    h.store("pooled", pooled_t);
    h.store("logits", logits_t);
    const auto run = h.run();
    const Tensor pooled = reference::pooler(hidden, pooler, kBatch, kSeq);
    expect_close(run->read("pooled"), transposed(pooled), mm(), "tanh(cls Wp^T + bp)^T");
    expect_close(run->read("logits"), transposed(reference::classifier(rounded(pooled, mm()), classifier)), mm(),
                 "logits^T");
}

INSTANTIATE_TEST_SUITE_P(Kernels, DeviceKernel,
                         ::testing::Values(KernelCase{"trn1.2xlarge", Precision::Fp32},
                                           KernelCase{"trn1.2xlarge", Precision::Bf16},
                                           KernelCase{"inf2.xlarge", Precision::Fp16},
                                           KernelCase{"inf1.xlarge", Precision::Fp32},
                                           KernelCase{"inf1.xlarge", Precision::Mixed},
                                           KernelCase{"trn2.48xlarge", Precision::Bf16}),
                         [](const ::testing::TestParamInfo<KernelCase>& info) {
                             std::string name = info.param.instance + "_" + std::string(device::name_of(info.param.precision));
                             for (char& c : name)
                                 if (c == '.') c = '_';
                             return name;
                         });

}  // namespace
}  // namespace nsim::kernels
