// bf16 on the device against fp32 in plain C++: the share of the 408 MRPC dev pairs whose predicted
// class (argmax of the logits) agrees. A random Hugging Face checkpoint written by the test (2 layers,
// hidden 128, 2 heads, intermediate 512, weights ~ N(0, 0.05)) is read back from disk, built for the
// device with the whole model there (`--embedding device`: token ids, token types and the attention
// mask in, as the AWS benchmark runs it) and executed functionally; the reference is the fp32
// forward pass of the same checkpoint. The engines compute in fp32 and round only where they write
// bf16, so what remains is bf16 storage (weights, activations): at least 97% of the pairs agree.
#include <algorithm>

#include <gtest/gtest.h>

#include "bert/hf_checkpoint.h"
#include "bert/random_weights.h"
#include "device/bert_program.h"
#include "device_run.h"
#include "eval/sentence_pairs.h"
#include "kernels_test_support.h"
#include "reference/bert_forward.h"
#include "tokenizer/bert_tokenizer.h"

namespace nsim::kernels {
namespace {

BertConfig agreement_config() {
    BertConfig c;
    c.vocab_size = 30522;
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 512;
    c.max_position_embeddings = 128;
    c.initializer_range = 0.05;
    c.label_names = {"not paraphrase", "paraphrase"};
    return c;
}

bool predicts_class_1(const float* logits) { return logits[1] > logits[0]; }

TEST(Bf16Agreement, MrpcDevPairsAgreeWithTheFp32ReferenceOnAtLeast97Percent) {
    constexpr uint32_t kSeq = 128, kBatch = 34;
    const BertTokenizer tokenizer(WordPieceVocab::load(testing::vocab_path()));
    const SentencePairFile file = read_sentence_pairs(testing::shared_data("mrpc/glue_mrpc_dev.tsv"));
    ASSERT_EQ(file.pairs.size(), 408u);
    ASSERT_EQ(file.pairs.size() % kBatch, 0u);
    std::vector<TokenBatch> batches;
    for (size_t first = 0; first < file.pairs.size(); first += kBatch) {
        std::vector<EncodedInput> encoded;
        for (size_t i = first; i < first + kBatch; ++i)
            encoded.push_back(tokenizer.encode_pair(file.pairs[i].a, file.pairs[i].b, kSeq));
        batches.push_back(make_token_batch(encoded));
    }

    // A random head puts nearly every pair in one class, where agreeing is free; a fine-tuned one
    // would not. So the classifier bias of class 1 moves by minus the median fp32 margin: the
    // reference then splits the pairs evenly, and many lie near the decision boundary.
    BertWeights random = random_bert_weights(agreement_config(), 19);
    std::vector<float> margins;
    for (const TokenBatch& tokens : batches) {
        const std::vector<float> logits = reference::bert_forward(random, tokens).logits.values;
        for (size_t b = 0; b < kBatch; ++b) margins.push_back(logits[2 * b + 1] - logits[2 * b]);
    }
    std::nth_element(margins.begin(), margins.begin() + margins.size() / 2, margins.end());
    random.classifier.bias.values[1] -= margins[margins.size() / 2];
    testing::ScratchDir scratch;
    save_hf_checkpoint(scratch.path(), random);
    const BertWeights weights = load_hf_checkpoint(scratch.path());

    device::BertProgramOptions o;
    o.config = weights.config;
    o.model_name = "mrpc-random";
    o.seq = kSeq;
    o.batch = kBatch;
    o.precision = device::Precision::Bf16;
    o.embedding = device::EmbeddingPlacement::Device;
    testing::DeviceRun run("trn1.2xlarge", device::build_bert_program(testing::core_spec("trn1.2xlarge"), o, &weights));

    size_t agree = 0, reference_class_1 = 0;
    for (const TokenBatch& tokens : batches) {
        const std::vector<float> want = reference::bert_forward(weights, tokens).logits.values;
        run.write_ints(device::kInputIds, tokens.input_ids);
        run.write_ints(device::kTokenTypeIds, tokens.token_type_ids);
        run.write_ints(device::kAttentionMask, tokens.attention_mask);
        run.run();
        const std::vector<float> got = run.read(device::kLogits);
        for (size_t b = 0; b < kBatch; ++b) {
            reference_class_1 += predicts_class_1(&want[2 * b]);
            agree += predicts_class_1(&want[2 * b]) == predicts_class_1(&got[2 * b]);
        }
    }
    std::cout << "bf16 device vs fp32 reference: " << agree << " of 408 MRPC dev pairs agree (reference: "
              << reference_class_1 << " in class 1)\n";
    // Both classes occur, or agreeing would say little.
    EXPECT_GT(reference_class_1, 408u / 10);
    EXPECT_LT(reference_class_1, 408u * 9 / 10);
    EXPECT_GE(agree * 100, 408u * 97);
}

}  // namespace
}  // namespace nsim::kernels
