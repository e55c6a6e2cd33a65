// The BERT program on real data: the trained BERT-tiny SST-2 encoder of shared/data (host-side
// embedding from its test vector, as the seeds partition BERT), and the 408 MRPC dev sentence pairs
// tokenised with the real uncased vocabulary through a random-weight Hugging Face checkpoint the
// test writes - bf16 on the device must predict what the fp32 reference predicts for every pair.
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

// A small BERT over the real vocabulary, so the tokeniser's ids index it.
BertConfig mrpc_config() {
    BertConfig c;
    c.vocab_size = 30522;
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 512;
    c.max_position_embeddings = 128;
    c.label_names = {"not paraphrase", "paraphrase"};
    return c;
}

TEST(MrpcDev, Bf16PredictsTheFp32ReferenceClassOnEveryPair) {
    const auto start = std::chrono::steady_clock::now();
    testing::ScratchDir scratch;
    save_hf_checkpoint(scratch.path(), random_bert_weights(mrpc_config(), 2024));
    const BertWeights weights = load_hf_checkpoint(scratch.path());
    const BertTokenizer tokenizer(WordPieceVocab::load(testing::vocab_path()));
    const SentencePairFile file = read_sentence_pairs(testing::shared_data("mrpc/glue_mrpc_dev.tsv"));
    ASSERT_EQ(file.pairs.size(), 408u);

    // Batches of 68 pairs, 64 tokens each (longest-first truncation, as transformers does).
    constexpr uint32_t kSeq = 64, kBatch = 68;
    BertProgramOptions o;
    o.config = weights.config;
    o.model_name = "mrpc-random";
    o.seq = kSeq;
    o.batch = kBatch;
    o.precision = Precision::Bf16;
    DeviceRun run("trn1.2xlarge", device::build_bert_program(testing::core_spec("trn1.2xlarge"), o, &weights));

    size_t mismatches = 0, truncated = 0;
    double smallest_margin = 1e30;
    for (size_t first = 0; first < file.pairs.size(); first += kBatch) {
        std::vector<EncodedInput> encoded;
        for (size_t i = first; i < first + kBatch; ++i) {
            encoded.push_back(tokenizer.encode_pair(file.pairs[i].a, file.pairs[i].b, kSeq));
            truncated += encoded.back().truncated;
        }
        const TokenBatch tokens = make_token_batch(encoded);
        const auto reference = reference::bert_forward(weights, tokens);
        run.write(device::kEmbeddings, reference.embeddings.values);
        run.write_ints(device::kAttentionMask, tokens.attention_mask);
        run.run();
        const std::vector<float> logits = run.read(device::kLogits);
        for (size_t b = 0; b < kBatch; ++b) {
            const float* want = &reference.logits.values[2 * b];
            const int expected = want[1] > want[0], got = logits[2 * b + 1] > logits[2 * b];
            smallest_margin = std::min(smallest_margin, double(std::fabs(want[1] - want[0])));
            if (expected != got && mismatches++ < 5)
                ADD_FAILURE() << "pair " << first + b << ": reference logits (" << want[0] << ", " << want[1]
                              << "), bf16 device (" << logits[2 * b] << ", " << logits[2 * b + 1] << ")";
        }
    }
    EXPECT_EQ(mismatches, 0u);
    std::cout << "408 MRPC dev pairs (" << truncated << " truncated to " << kSeq << " tokens), bf16 on the device: "
              << mismatches << " class mismatches, smallest fp32 logit margin " << smallest_margin << "; "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s host time\n";
}

}  // namespace
}  // namespace nsim::kernels
