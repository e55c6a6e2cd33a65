// The BERT program on real data: the trained BERT-tiny SST-2 encoder of shared/data (host-side
// embedding from its test vector, as the seeds partition BERT), and the 408 MRPC dev sentence pairs
// tokenised with the real uncased vocabulary through a random-weight Hugging Face checkpoint the
// test writes - bf16 on the device must predict what the fp32 reference predicts for every pair
// that is not within bf16's error of the decision boundary.
#include <algorithm>
#include <chrono>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bert/fhe_tiny_checkpoint.h"
#include "bert/hf_checkpoint.h"
#include "bert/random_weights.h"
#include "device/bert_program.h"
#include "device_run.h"
#include "eval/sentence_pairs.h"
#include "kernels_test_support.h"
#include "reference/bert_forward.h"
#include "reference/embeddings.h"
#include "tokenizer/bert_tokenizer.h"

namespace nsim::kernels {
namespace {

using device::BertProgramOptions;
using device::Precision;
using testing::DeviceRun;

constexpr size_t kTinyTokens = 10;

struct TinyCase {
    Precision precision;
    double tolerance;  // relative, encoder output and logits
};

class BertTinySst2 : public ::testing::TestWithParam<TinyCase> {};

TEST_P(BertTinySst2, EncoderOutputAndLogitsMatchTheTestVector) {
    const auto dir = testing::shared_data("bert-tiny-sst2-fhe");
    const BertWeights weights = load_fhe_tiny_checkpoint(dir);
    const Tensor input = read_raw_f32(dir / "test_input_embeddings.f32", {kTinyTokens, 128});
    const Tensor expected_encoder = read_raw_f32(dir / "test_encoder_output_ref.f32", {kTinyTokens, 128});
    std::ifstream json_in(dir / "test_vector.json");
    const auto logits = nlohmann::json::parse(json_in)["derived_reference"]["logits_exact"].get<std::vector<float>>();

    BertProgramOptions o;
    o.config = weights.config;
    o.model_name = "bert-tiny-sst2";
    o.seq = kTinyTokens;
    o.precision = GetParam().precision;
    DeviceRun run("inf2.xlarge", device::build_bert_program(testing::core_spec("inf2.xlarge"), o, &weights));
    run.write(device::kEmbeddings, input.values);
    run.write_ints(device::kAttentionMask, std::vector<int32_t>(kTinyTokens, 1));
    run.run();
    const std::vector<float> got_logits = run.read(device::kLogits);
    const double encoder = testing::relative_error(run.read(device::kEncoderOutput), expected_encoder.values);
    const double logit_error = testing::relative_error(got_logits, logits);
    std::cout << device::name_of(o.precision) << ": encoder output relative error " << encoder << ", logits ("
              << got_logits[0] << ", " << got_logits[1] << ") relative error " << logit_error << "\n";
    EXPECT_LT(encoder, GetParam().tolerance);
    EXPECT_LT(logit_error, GetParam().tolerance);
    EXPECT_GT(got_logits[0], got_logits[1]) << "SST-2 label 0 (negative), as the reference";
}

INSTANTIATE_TEST_SUITE_P(Kernels, BertTinySst2,
                         ::testing::Values(TinyCase{Precision::Fp32, 1e-4}, TinyCase{Precision::Mixed, 1e-2},
                                           TinyCase{Precision::Fp16, 2e-2}, TinyCase{Precision::Bf16, 6e-2}),
                         [](const ::testing::TestParamInfo<TinyCase>& info) {
                             return std::string(device::name_of(info.param.precision));
                         });

// A small BERT over the real vocabulary, so the tokeniser's ids index it; weights spread wider than
// BERT's 0.02, at which the logits hardly depend on the input (a 2-layer 0.02 checkpoint put all 408
// pairs in one class, every logit margin within 2 % of the others). One layer keeps the test's host
// time at seq 128 where it was at seq 64 with two; the layer-to-layer path in bf16 is BERT-tiny's above.
BertConfig mrpc_config() {
    BertConfig c;
    c.vocab_size = 30522;
    c.hidden_size = 128;
    c.num_hidden_layers = 1;
    c.num_attention_heads = 2;
    c.intermediate_size = 256;
    c.max_position_embeddings = 128;
    c.initializer_range = 0.1;
    c.label_names = {"not paraphrase", "paraphrase"};
    return c;
}

// One device execution's pairs: what the device is given and the fp32 reference's logits.
struct ReferenceBatch {
    std::vector<float> embeddings;
    std::vector<int32_t> attention_mask;
    std::vector<float> logits;  // [pairs, 2]
};

double margin(const float* logits) { return double(logits[1]) - logits[0]; }

// The 408 pairs at seq 128, as the seed serves MRPC, in 12 executions of 34 pairs (4352 tokens: more
// than the PSUM ring holds for one output tile of the feature-major layers, so those take passes).
//
// The random head alone puts nearly every pair in one class (407 of 408), which makes "the same class
// as fp32" nearly free; a head fine-tuned on MRPC would not. So the classifier's bias is shifted until
// the fp32 reference splits the pairs evenly. Then pairs lie arbitrarily close to the decision
// boundary, and there either class is within bf16's error: every logit must be within bf16's
// tolerance, every pair further from the boundary than that must get the reference's class, and
// those must be most pairs.
TEST(MrpcDev, Bf16PredictsTheFp32ReferenceClassOnEveryPairOutsideItsErrorOfTheBoundary) {
    constexpr uint32_t kSeq = 128, kBatch = 34;
    constexpr double kBf16LogitTolerance = 6e-2;  // relative to the largest logit, as for BERT-tiny above
    const auto start = std::chrono::steady_clock::now();
    BertWeights weights = random_bert_weights(mrpc_config(), 2024);
    const BertTokenizer tokenizer(WordPieceVocab::load(testing::vocab_path()));
    const SentencePairFile file = read_sentence_pairs(testing::shared_data("mrpc/glue_mrpc_dev.tsv"));
    ASSERT_EQ(file.pairs.size(), 408u);
    ASSERT_EQ(file.pairs.size() % kBatch, 0u);

    std::vector<ReferenceBatch> batches;
    std::vector<double> margins;
    size_t truncated = 0;
    for (size_t first = 0; first < file.pairs.size(); first += kBatch) {
        std::vector<EncodedInput> encoded;
        for (size_t i = first; i < first + kBatch; ++i) {
            encoded.push_back(tokenizer.encode_pair(file.pairs[i].a, file.pairs[i].b, kSeq));
            truncated += encoded.back().truncated;
        }
        const TokenBatch tokens = make_token_batch(encoded);
        const auto reference = reference::bert_forward(weights, tokens);
        batches.push_back({reference.embeddings.values, tokens.attention_mask, reference.logits.values});
        for (size_t b = 0; b < kBatch; ++b) margins.push_back(margin(&reference.logits.values[2 * b]));
    }
    const size_t unshifted_class1 = size_t(std::count_if(margins.begin(), margins.end(), [](double m) { return m > 0; }));
    // The bias of logit 1 moves by minus the median margin, and so does every reference logit 1.
    std::nth_element(margins.begin(), margins.begin() + margins.size() / 2, margins.end());
    const float shift = float(margins[margins.size() / 2]);
    weights.classifier.bias.values[1] -= shift;
    double largest_logit = 0;
    size_t reference_class[2] = {0, 0};
    for (ReferenceBatch& batch : batches)
        for (size_t b = 0; b < kBatch; ++b) {
            batch.logits[2 * b + 1] -= shift;
            largest_logit = std::max({largest_logit, std::fabs(double(batch.logits[2 * b])), std::fabs(double(batch.logits[2 * b + 1]))});
            ++reference_class[margin(&batch.logits[2 * b]) > 0];
        }
    EXPECT_GE(std::min(reference_class[0], reference_class[1]), 408u * 2 / 5) << "the classes are not balanced";

    // The device program is built from the checkpoint as written to disk and read back.
    testing::ScratchDir scratch;
    save_hf_checkpoint(scratch.path(), weights);
    const BertWeights checkpoint = load_hf_checkpoint(scratch.path());
    BertProgramOptions o;
    o.config = checkpoint.config;
    o.model_name = "mrpc-random";
    o.seq = kSeq;
    o.batch = kBatch;
    o.precision = Precision::Bf16;
    DeviceRun run("trn1.2xlarge", device::build_bert_program(testing::core_spec("trn1.2xlarge"), o, &checkpoint));

    const double tolerance = kBf16LogitTolerance * largest_logit;
    size_t decided = 0, mismatches = 0, mismatches_near_the_boundary = 0;
    double worst_error = 0;
    for (size_t n = 0; n < batches.size(); ++n) {
        const ReferenceBatch& batch = batches[n];
        run.write(device::kEmbeddings, batch.embeddings);
        run.write_ints(device::kAttentionMask, batch.attention_mask);
        run.run();
        const std::vector<float> logits = run.read(device::kLogits);
        for (size_t b = 0; b < kBatch; ++b) {
            const float* want = &batch.logits[2 * b];
            const float* got = &logits[2 * b];
            const size_t pair = n * kBatch + b;
            for (int c = 0; c < 2; ++c) {
                worst_error = std::max(worst_error, std::fabs(double(got[c]) - want[c]));
                EXPECT_NEAR(got[c], want[c], tolerance) << "pair " << pair << " logit " << c;
            }
            const bool same_class = (margin(got) > 0) == (margin(want) > 0);
            // Both logits within the tolerance move the margin by at most twice it.
            if (std::fabs(margin(want)) > 2 * tolerance) {
                ++decided;
                EXPECT_TRUE(same_class) << "pair " << pair << ": reference logits (" << want[0] << ", " << want[1]
                                        << "), bf16 device (" << got[0] << ", " << got[1] << ")";
                mismatches += !same_class;
            } else {
                mismatches_near_the_boundary += !same_class;
            }
        }
    }
    EXPECT_GE(decided, 408u / 2) << "too few pairs further from the boundary than bf16's error";
    std::cout << "408 MRPC dev pairs (" << truncated << " truncated to " << kSeq << " tokens), fp32 reference classes "
              << reference_class[0] << " / " << reference_class[1] << " (" << 408 - unshifted_class1 << " / "
              << unshifted_class1 << " before the bias shift); bf16 on the device: largest logit error "
              << worst_error << " (tolerance " << tolerance << "), " << decided
              << " pairs further than twice that from the boundary with " << mismatches << " class mismatches, "
              << 408 - decided << " nearer with " << mismatches_near_the_boundary << "; "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s host time\n";
}

}  // namespace
}  // namespace nsim::kernels
