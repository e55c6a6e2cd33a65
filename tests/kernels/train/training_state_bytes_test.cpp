// What neuron-build bert-train checks against device memory before it makes any weight: the state a
// training program keeps, counted from the config (train::training_state_bytes). Checked against the
// parameter count training.md A2.1 derives for BERT-large and against the tensors a built program
// really has, by kind (the count neuron-sim train's report prints).
#include <gtest/gtest.h>

#include "bert/random_weights.h"
#include "device_run.h"
#include "train/training_program.h"

namespace nsim::kernels {
namespace {

// training.md A2.1: encoder + pooler of bert-large-uncased hold 335,141,888 parameters; the
// classifier of two labels adds 1024 x 2 + 2.
TEST(TrainingStateBytes, BertLargeHasTheParametersTrainingMdDerives) {
    train::TrainingProgramOptions o;
    o.precision = device::Precision::Bf16;
    const uint64_t parameters = 335141888ull + 1024 * 2 + 2;
    const train::TrainingStateBytes b = train::training_state_bytes(bert_large_config(), o);
    EXPECT_EQ(b.gradients, 4 * parameters);          // fp32 sums
    EXPECT_EQ(b.optimizer_states, 8 * parameters);   // fp32 m and v
    const uint64_t linear_weights = 24ull * (4 * 1024 * 1024 + 2 * 1024 * 4096) + 1024 * 1024 + 2 * 1024;
    EXPECT_EQ(b.weights, 2 * (parameters + linear_weights));  // bf16 parameters and W^T
    // 14 bytes per parameter and the W^T copies: 4.9 GiB, within one trn1 core's 16 GiB, not within 4.
    EXPECT_NO_THROW(train::check_training_state_fits(bert_large_config(), o, uint64_t(16) << 30, "16 GiB"));
    EXPECT_THROW(train::check_training_state_fits(bert_large_config(), o, uint64_t(4) << 30, "4 GiB"), std::invalid_argument);
    o.step.optimizer_states = isa::DType::Bf16;  // SDK 2.3's all-BF16 AdamW
    EXPECT_EQ(train::training_state_bytes(bert_large_config(), o).optimizer_states, 4 * parameters);
}

// training.md A2.1: BertForPreTraining from the bert-large-uncased config (MLM transform, MLM bias -
// the decoder's weight tied to the word embeddings - and the NSP head) has 336,226,108 parameters;
// the word table's W^T (the decoder's, as the program streams it) is a weight on top.
TEST(TrainingStateBytes, BertLargePretrainingHasTheParametersTrainingMdDerives) {
    train::TrainingProgramOptions o;
    o.precision = device::Precision::Bf16;
    o.task = train::kPretrainTask;
    const uint64_t parameters = 336226108ull;
    const train::TrainingStateBytes b = train::training_state_bytes(bert_large_config(), o);
    EXPECT_EQ(b.gradients, 4 * parameters);
    EXPECT_EQ(b.optimizer_states, 8 * parameters);
    const uint64_t transposed = 24ull * (4 * 1024 * 1024 + 2 * 1024 * 4096) + 2 * 1024 * 1024 + 2 * 1024 + 30522ull * 1024;
    EXPECT_EQ(b.weights, 2 * (parameters + transposed));
}

// The count agrees with a built program's Scratch tensors (neuron-sim train's memory by kind), for
// fine-tuning and for pretraining.
TEST(TrainingStateBytes, MatchesTheTensorsOfABuiltProgram) {
    BertConfig c;
    c.vocab_size = 300;
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 256;
    c.max_position_embeddings = 32;
    for (const bool pretrain : {false, true})
    for (const device::Precision precision : {device::Precision::Fp32, device::Precision::Bf16}) {
        train::TrainingProgramOptions o;
        o.precision = precision;
        o.step.micro_batch = 2;
        o.step.seq = 16;
        if (pretrain) {
            o.task = train::kPretrainTask;
            o.step.max_predictions = 3;
        }
        const isa::Container program = train::build_training_program(testing::core_spec("trn1.2xlarge"), o,
                                                                     random_bert_weights(c, 1, true, pretrain));
        const train::TrainingStateBytes built = train::training_state_bytes(program);
        EXPECT_GT(built.weights, 0u);
        const train::TrainingStateBytes counted = train::training_state_bytes(c, o);
        EXPECT_EQ(counted.weights, built.weights);
        EXPECT_EQ(counted.gradients, built.gradients);
        EXPECT_EQ(counted.optimizer_states, built.optimizer_states);
    }
}

}  // namespace
}  // namespace nsim::kernels
