// A BERT program built with the embedding on the host carries the embedding tables (for runs from
// token ids), exactly as given; programs that embed on the device, or have no weights or no tables,
// carry none.
#include <gtest/gtest.h>

#include "bert/random_weights.h"
#include "device/bert_program.h"
#include "device/host_embedding_tables.h"
#include "device_run.h"
#include "small_bert.h"

namespace nsim::kernels {
namespace {

using device::BertProgramOptions;
using device::EmbeddingPlacement;

isa::Container build(EmbeddingPlacement embedding, const BertWeights* weights) {
    BertProgramOptions o;
    o.config = testing::small_bert_config();
    o.seq = 16;
    o.embedding = embedding;
    return device::build_bert_program(testing::core_spec("trn1.2xlarge"), o, weights);
}

TEST(HostEmbeddingTables, HostEmbeddingProgramCarriesTheTablesExactly) {
    const BertWeights weights = random_bert_weights(testing::small_bert_config(), 11);
    const isa::Container program = build(EmbeddingPlacement::Host, &weights);
    const auto tables = device::read_host_embedding_tables(program);
    ASSERT_TRUE(tables.has_value());
    const BertEmbeddingWeights& want = *weights.embeddings;
    EXPECT_EQ(tables->word.shape, want.word.shape);
    EXPECT_EQ(tables->word.values, want.word.values);
    EXPECT_EQ(tables->position.values, want.position.values);
    EXPECT_EQ(tables->token_type.shape, want.token_type.shape);
    EXPECT_EQ(tables->token_type.values, want.token_type.values);
    EXPECT_EQ(tables->layer_norm.gamma.values, want.layer_norm.gamma.values);
    EXPECT_EQ(tables->layer_norm.beta.values, want.layer_norm.beta.values);
    for (const isa::TensorInfo& t : program.tensors) {
        if (t.name.rfind("host.embeddings.", 0) == 0) {
            EXPECT_EQ(t.location, isa::TensorLocation::Host) << t.name;
        }
    }
    EXPECT_EQ(program.metadata_value("vocab_size"), "40");
    EXPECT_EQ(program.metadata_value("layer_norm_eps"), "1e-12");
    // The device part is unchanged: it still runs (tables loaded into host memory, read by nobody).
    testing::DeviceRun run("trn1.2xlarge", program);
    run.run(false);
}

TEST(HostEmbeddingTables, NoneOnTheDeviceWithoutWeightsOrWithoutTables) {
    const BertWeights weights = random_bert_weights(testing::small_bert_config(), 11);
    EXPECT_FALSE(device::read_host_embedding_tables(build(EmbeddingPlacement::Device, &weights)));
    EXPECT_FALSE(device::read_host_embedding_tables(build(EmbeddingPlacement::Host, nullptr)));
    const BertWeights encoder_only = random_bert_weights(testing::small_bert_config(), 11, false);
    EXPECT_FALSE(device::read_host_embedding_tables(build(EmbeddingPlacement::Host, &encoder_only)));
}

}  // namespace
}  // namespace nsim::kernels
