// The whole BERT program on the simulated device against the fp32 reference forward.
#include <gtest/gtest.h>

#include "bert/random_weights.h"
#include "device/bert_program.h"
#include "device_run.h"
#include "reference/bert_forward.h"

namespace nsim::kernels {
namespace {

using device::BertProgramOptions;
using device::Precision;
using testing::DeviceRun;

BertConfig small_config() {
    BertConfig c;
    c.vocab_size = 300;
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 512;
    c.max_position_embeddings = 64;
    return c;
}

TEST(BertProgram, Fp32HostEmbeddingMatchesTheReference) {
    BertProgramOptions o;
    o.config = small_config();
    o.seq = 16;
    o.batch = 2;
    o.precision = Precision::Fp32;
    const BertWeights w = random_bert_weights(o.config, 7);
    TokenBatch tokens;
    tokens.batch = o.batch;
    tokens.seq_len = o.seq;
    for (uint32_t i = 0; i < o.batch * o.seq; ++i) {
        tokens.input_ids.push_back(int32_t((i * 37 + 5) % o.config.vocab_size));
        tokens.token_type_ids.push_back(i % o.seq >= 9 ? 1 : 0);
        tokens.attention_mask.push_back(i % o.seq < 13 || i < o.seq ? 1 : 0);
    }
    const auto expected = reference::bert_forward(w, tokens);
    DeviceRun run("trn1.2xlarge", device::build_bert_program(testing::core_spec("trn1.2xlarge"), o, &w));
    run.write(device::kEmbeddings, expected.embeddings.values);
    run.write_ints(device::kAttentionMask, tokens.attention_mask);
    run.run();
    const double encoder = testing::relative_error(run.read(device::kEncoderOutput), expected.layer_outputs.back().values);
    const double logits = testing::relative_error(run.read(device::kLogits), expected.logits.values);
    std::cout << "fp32: encoder output relative error " << encoder << ", logits " << logits << "\n";
    EXPECT_LT(encoder, 1e-4);
    EXPECT_LT(logits, 1e-4);
}

}  // namespace
}  // namespace nsim::kernels
