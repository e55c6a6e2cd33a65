// The whole BERT program on the simulated device against the fp32 reference forward, for every
// generation, data type, embedding placement and kind of parallelism.
#include <gtest/gtest.h>

#include "bert/random_weights.h"
#include "device/bert_program.h"
#include "device_run.h"
#include "reference/bert_forward.h"

namespace nsim::kernels {
namespace {

using device::BertProgramOptions;
using device::EmbeddingPlacement;
using device::Parallelism;
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

// Sequences of different lengths (padding masked) and both segments.
TokenBatch tokens_for(const BertProgramOptions& o) {
    const uint32_t rows = device::total_sequences(o);
    TokenBatch t;
    t.batch = rows;
    t.seq_len = o.seq;
    for (uint32_t i = 0; i < rows * o.seq; ++i) {
        const uint32_t b = i / o.seq, s = i % o.seq;
        t.input_ids.push_back(int32_t((i * 37 + 5) % o.config.vocab_size));
        t.token_type_ids.push_back(s >= o.seq / 2 ? 1 : 0);
        t.attention_mask.push_back(s < o.seq - 3 * (b % 3) ? 1 : 0);
    }
    return t;
}

struct Case {
    std::string name;
    std::string instance;
    Precision precision;
    EmbeddingPlacement embedding;
    Parallelism parallel;
    uint32_t cores, batch, seq;
    double tolerance;  // relative, on encoder output and logits
    uint32_t max_pass_batch = 0;  // sequences per pass at most (0: the whole batch, as SBUF holds it)
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

class WholeBert : public ::testing::TestWithParam<Case> {};

TEST_P(WholeBert, MatchesTheReferenceForward) {
    const Case& c = GetParam();
    BertProgramOptions o;
    o.config = small_config();
    o.seq = c.seq;
    o.batch = c.batch;
    o.cores = c.cores;
    o.precision = c.precision;
    o.embedding = c.embedding;
    o.parallel = c.parallel;
    o.max_pass_batch = c.max_pass_batch;
    const BertWeights w = random_bert_weights(o.config, 7);
    const TokenBatch tokens = tokens_for(o);
    const auto expected = reference::bert_forward(w, tokens);
    DeviceRun run(c.instance, device::build_bert_program(testing::core_spec(c.instance), o, &w));
    if (c.embedding == EmbeddingPlacement::Host) {
        run.write(device::kEmbeddings, expected.embeddings.values);
    } else {
        run.write_ints(device::kInputIds, tokens.input_ids);
        run.write_ints(device::kTokenTypeIds, tokens.token_type_ids);
    }
    run.write_ints(device::kAttentionMask, tokens.attention_mask);
    run.run();
    const double encoder = testing::relative_error(run.read(device::kEncoderOutput), expected.layer_outputs.back().values);
    const double logits = testing::relative_error(run.read(device::kLogits), expected.logits.values);
    std::cout << c.name << ": encoder output relative error " << encoder << ", logits " << logits << "\n";
    EXPECT_LT(encoder, c.tolerance);
    EXPECT_LT(logits, c.tolerance);
}

// fp32 to the acceptance's 1e-4; bf16 (8-bit mantissa) and fp16 (11-bit) through two layers of
// rounded matmul operands and residuals.
constexpr double kFp32 = 1e-4, kBf16 = 5e-2, kFp16 = 1e-2;

INSTANTIATE_TEST_SUITE_P(
    Kernels, WholeBert,
    ::testing::Values(
        Case{"v2_fp32_host", "trn1.2xlarge", Precision::Fp32, EmbeddingPlacement::Host, Parallelism::Data, 1, 2, 16, kFp32},
        Case{"v2_fp32_device", "trn1.2xlarge", Precision::Fp32, EmbeddingPlacement::Device, Parallelism::Data, 1, 2, 16, kFp32},
        Case{"v2_bf16_host", "trn1.2xlarge", Precision::Bf16, EmbeddingPlacement::Host, Parallelism::Data, 1, 2, 32, kBf16},
        Case{"v2_fp16_device", "inf2.xlarge", Precision::Fp16, EmbeddingPlacement::Device, Parallelism::Data, 1, 2, 32, kFp16},
        Case{"v2_mixed_host", "inf2.xlarge", Precision::Mixed, EmbeddingPlacement::Host, Parallelism::Data, 1, 3, 24, kFp16},
        Case{"v1_fp32_host", "inf1.xlarge", Precision::Fp32, EmbeddingPlacement::Host, Parallelism::Data, 1, 2, 16, kFp32},
        Case{"v1_mixed_device", "inf1.xlarge", Precision::Mixed, EmbeddingPlacement::Device, Parallelism::Data, 1, 2, 32, kFp16},
        Case{"v3_bf16_device", "trn2.48xlarge", Precision::Bf16, EmbeddingPlacement::Device, Parallelism::Data, 1, 1, 32, kBf16},
        Case{"v3_fp32_host", "trn2.48xlarge", Precision::Fp32, EmbeddingPlacement::Host, Parallelism::Data, 1, 2, 16, kFp32},
        Case{"v2_fp32_two_seq_tiles", "trn1.2xlarge", Precision::Fp32, EmbeddingPlacement::Host, Parallelism::Data, 1, 3, 64, kFp32},
        Case{"v1_data_parallel_4_cores", "inf1.xlarge", Precision::Fp32, EmbeddingPlacement::Host, Parallelism::Data, 4, 1, 16, kFp32},
        Case{"v2_pipeline_2_cores", "trn1.2xlarge", Precision::Fp32, EmbeddingPlacement::Device, Parallelism::Pipeline, 2, 2, 16, kFp32},
        Case{"v1_pipeline_2_cores_mixed", "inf1.xlarge", Precision::Mixed, EmbeddingPlacement::Host, Parallelism::Pipeline, 2, 2, 16, kFp16},
        // 512 tokens on NeuronCore-v1: PSUM bounds the FFN's first weight blocks at 256 of its 512
        // columns, so its weights are written in two column panels (DramMatrix::panel_columns).
        Case{"v1_mixed_weight_panels", "inf1.xlarge", Precision::Mixed, EmbeddingPlacement::Host, Parallelism::Data, 1, 8, 64, kFp16},
        // Batches in passes (one or two sequences at a time), each reading and writing its own rows.
        Case{"v2_fp32_device_passes", "trn1.2xlarge", Precision::Fp32, EmbeddingPlacement::Device, Parallelism::Data, 2, 4, 16, kFp32, 2},
        Case{"v2_pipeline_passes", "trn1.2xlarge", Precision::Fp32, EmbeddingPlacement::Host, Parallelism::Pipeline, 2, 3, 16, kFp32, 1}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace nsim::kernels
