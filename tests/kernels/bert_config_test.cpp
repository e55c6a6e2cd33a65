// config.json and the presets: the real files read, and each kind of mistake is one line naming the
// file and the key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bert/bert_config.h"
#include "common/input_error.h"
#include "kernels_test_support.h"

namespace nsim::kernels {
namespace {

TEST(BertConfig, PresetsHaveThePublishedDimensions) {
    const BertConfig base = *bert_preset_config("bert-base");
    EXPECT_EQ(base.hidden_size, 768);
    EXPECT_EQ(base.num_hidden_layers, 12);
    EXPECT_EQ(base.num_attention_heads, 12);
    EXPECT_EQ(base.intermediate_size, 3072);
    EXPECT_EQ(base.vocab_size, 30522);
    EXPECT_EQ(base.head_size(), 64);
    const BertConfig large = *bert_preset_config("bert-large");
    EXPECT_EQ(large.hidden_size, 1024);
    EXPECT_EQ(large.num_hidden_layers, 24);
    EXPECT_EQ(large.num_attention_heads, 16);
    EXPECT_EQ(large.intermediate_size, 4096);
    EXPECT_EQ(large.head_size(), 64);
    EXPECT_EQ(large.layer_norm_eps, 1e-12);
    EXPECT_FALSE(bert_preset_config("bert-huge").has_value());
}

TEST(BertConfig, ReadsTheSharedBertTinyConfig) {
    const BertConfig c = read_bert_config(testing::shared_data("bert-tiny-sst2-fhe/config.json"));
    EXPECT_EQ(c.hidden_size, 128);
    EXPECT_EQ(c.num_hidden_layers, 2);
    EXPECT_EQ(c.num_attention_heads, 2);
    EXPECT_EQ(c.intermediate_size, 512);
    EXPECT_EQ(c.hidden_act, HiddenActivation::GeluErf);
    EXPECT_EQ(c.num_labels, 2);
    EXPECT_THAT(c.label_names, ::testing::ElementsAre("negative", "positive"));
    EXPECT_EQ(c.hidden_dropout_prob, 0.1);  // the file has none: transformers' default, what training reads
    EXPECT_EQ(c.attention_probs_dropout_prob, 0.1);
}

TEST(BertConfig, MissingKeysTakeTransformersDefaultsAndJsonRoundTrips) {
    const BertConfig c = parse_bert_config(
        nlohmann::json::parse(R"({"hidden_act": "gelu_new", "num_labels": 3, "attention_probs_dropout_prob": 0.25})"), "c");
    EXPECT_EQ(c.hidden_size, 768);
    EXPECT_EQ(c.hidden_act, HiddenActivation::GeluTanh);
    EXPECT_EQ(c.num_labels, 3);
    const BertConfig back = parse_bert_config(bert_config_to_json(c), "again");
    EXPECT_EQ(back.hidden_act, HiddenActivation::GeluTanh);
    EXPECT_EQ(back.num_labels, 3);
    EXPECT_EQ(back.intermediate_size, c.intermediate_size);
    EXPECT_EQ(back.hidden_dropout_prob, 0.1);
    EXPECT_EQ(back.attention_probs_dropout_prob, 0.25);
}

struct BadConfig {
    const char* name;
    const char* json;
    const char* expected;  // after "cfg.json: "
};

void PrintTo(const BadConfig& c, std::ostream* os) { *os << c.name; }

class BertConfigError : public ::testing::TestWithParam<BadConfig> {};

TEST_P(BertConfigError, IsOneLineNamingFileAndKey) {
    testing::ScratchDir dir;
    testing::write_text(dir / "cfg.json", GetParam().json);
    try {
        read_bert_config(dir / "cfg.json");
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), (dir / "cfg.json").string() + ": " + GetParam().expected);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BertConfigError,
    ::testing::Values(
        BadConfig{"heads", R"({"hidden_size": 100, "num_attention_heads": 12})",
                  "key 'hidden_size': 100 is not divisible by num_attention_heads (12)"},
        BadConfig{"negative", R"({"vocab_size": -5})", "key 'vocab_size': must be a positive integer, got -5"},
        BadConfig{"zero_layers", R"({"num_hidden_layers": 0})",
                  "key 'num_hidden_layers': must be a positive integer, got 0"},
        BadConfig{"string", R"({"intermediate_size": "3072"})",
                  "key 'intermediate_size': must be a positive integer, got \"3072\""},
        BadConfig{"float", R"({"hidden_size": 768.5})", "key 'hidden_size': must be a positive integer, got 768.5"},
        BadConfig{"act", R"({"hidden_act": "swish"})",
                  "key 'hidden_act': \"swish\" is not one of gelu, gelu_new, gelu_pytorch_tanh, relu"},
        BadConfig{"eps", R"({"layer_norm_eps": 0})", "key 'layer_norm_eps': must be a positive number, got 0"},
        BadConfig{"dropout", R"({"hidden_dropout_prob": 1})", "key 'hidden_dropout_prob': must be in [0, 1), got 1"},
        BadConfig{"attention_dropout", R"({"attention_probs_dropout_prob": -0.1})",
                  "key 'attention_probs_dropout_prob': must be in [0, 1), got -0.1"},
        BadConfig{"model_type", R"({"model_type": "roberta"})",
                  "key 'model_type': \"roberta\" is not supported (only \"bert\")"},
        BadConfig{"position", R"({"position_embedding_type": "relative_key"})",
                  "key 'position_embedding_type': \"relative_key\" is not supported (only \"absolute\")"},
        BadConfig{"labels", R"({"num_labels": 3, "id2label": {"0": "a", "1": "b"}})",
                  "key 'id2label': has 2 labels but num_labels is 3"},
        BadConfig{"label_ids", R"({"id2label": {"0": "a", "2": "b"}})",
                  "key 'id2label': ids must be \"0\"..\"1\", got \"2\""},
        BadConfig{"decoder", R"({"is_decoder": true})", "key 'is_decoder': true is not supported (encoder-only BERT)"},
        BadConfig{"not_object", R"([1, 2])", "must hold a JSON object"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(BertConfigErrors, MissingFileAndInvalidJson) {
    try {
        read_bert_config("/nonexistent/config.json");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(), "/nonexistent/config.json: cannot open the model config: No such file or directory");
    }
    testing::ScratchDir dir;
    testing::write_text(dir / "config.json", "{\"hidden_size\": 768,");
    try {
        read_bert_config(dir / "config.json");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), ::testing::StartsWith((dir / "config.json").string() + ": not valid JSON ("));
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
}

// Found by the checkpoint fuzzer: a number past double's range is nlohmann's out_of_range, not a
// parse_error; it reached the user as "terminate called" before.
TEST(BertConfigErrors, ANumberPastDoubleIsInvalidJsonNotACrash) {
    testing::ScratchDir dir;
    testing::write_text(dir / "config.json", "{\"vocab_size\": 30e523, \"hidden_size\": 768}");
    try {
        read_bert_config(dir / "config.json");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), ::testing::StartsWith((dir / "config.json").string() + ": not valid JSON ("));
    }
}

}  // namespace
}  // namespace nsim::kernels
