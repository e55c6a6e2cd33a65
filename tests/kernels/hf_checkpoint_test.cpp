// Hugging Face checkpoint directories: written by the test, read back; the older and shorter tensor names
// users' files have; and each user mistake as one line naming the tensor and both shapes.
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bert/half_float.h"
#include "bert/hf_checkpoint.h"
#include "bert/random_weights.h"
#include "bert/safetensors_reader.h"
#include "bert/safetensors_writer.h"
#include "common/input_error.h"
#include "kernels_test_support.h"
#include "small_bert.h"

namespace nsim::kernels {
namespace {

using ::testing::HasSubstr;

void expect_same_weights(BertWeights& a, BertWeights& b) {
    auto sa = bert_tensor_slots(a, a.embeddings.has_value());
    auto sb = bert_tensor_slots(b, b.embeddings.has_value());
    ASSERT_EQ(sa.size(), sb.size());
    for (size_t i = 0; i < sa.size(); ++i) {
        EXPECT_EQ(sa[i].name, sb[i].name);
        EXPECT_EQ(sa[i].tensor->shape, sb[i].tensor->shape) << sa[i].name;
        EXPECT_EQ(sa[i].tensor->values, sb[i].tensor->values) << sa[i].name;
    }
}

std::string checkpoint_load_error(const std::filesystem::path& dir) {
    return testing::input_error_of([&] { load_hf_checkpoint(dir); });
}

// Writes `weights` under the names `rename` gives (empty: leave the tensor out), plus extra entries.
void write_renamed(const std::filesystem::path& dir, BertWeights& weights,
                   const std::function<std::string(const std::string&)>& rename,
                   std::vector<SafetensorsEntry> extra = {}) {
    save_hf_checkpoint(dir, weights);  // for config.json
    std::vector<SafetensorsEntry> entries = std::move(extra);
    for (const auto& slot : bert_tensor_slots(weights, true)) {
        const std::string name = rename(slot.name);
        if (!name.empty()) entries.push_back(make_safetensors_entry(name, *slot.tensor));
    }
    write_safetensors(dir / "model.safetensors", entries);
}

TEST(HfCheckpoint, TensorCountAndNamesAreTheStandardOnes) {
    BertWeights w = random_bert_weights(testing::small_bert_config(), 1);
    const auto slots = bert_tensor_slots(w, true);
    EXPECT_EQ(slots.size(), 5u + 2 * 16 + 4);
    EXPECT_EQ(slots.front().name, "bert.embeddings.word_embeddings.weight");
    EXPECT_EQ(slots[5].name, "bert.encoder.layer.0.attention.self.query.weight");
    EXPECT_EQ(slots[14].name, "bert.encoder.layer.0.attention.output.LayerNorm.bias");
    EXPECT_EQ(slots[15].name, "bert.encoder.layer.0.intermediate.dense.weight");
    EXPECT_EQ(slots[15].shape, (Shape{16, 8}));
    EXPECT_EQ(slots[17].name, "bert.encoder.layer.0.output.dense.weight");
    EXPECT_EQ(slots[17].shape, (Shape{8, 16}));
    EXPECT_EQ(slots.back().name, "classifier.bias");
}

TEST(HfCheckpoint, WriteThenLoadGivesTheSameWeights) {
    testing::ScratchDir dir;
    BertWeights written = random_bert_weights(testing::small_bert_config(), 7);
    save_hf_checkpoint(dir.path(), written);
    BertWeights loaded = load_hf_checkpoint(dir.path());
    EXPECT_EQ(loaded.config.hidden_size, 8);
    EXPECT_EQ(loaded.config.num_hidden_layers, 2);
    ASSERT_TRUE(loaded.embeddings.has_value());
    expect_same_weights(written, loaded);
}

TEST(HfCheckpoint, Bf16CheckpointLoadsAsRoundedFp32) {
    testing::ScratchDir dir;
    BertWeights written = random_bert_weights(testing::small_bert_config(), 7);
    save_hf_checkpoint(dir.path(), written, SafetensorsDtype::BF16);
    EXPECT_EQ(SafetensorsReader(dir / "model.safetensors").find("classifier.weight")->dtype, SafetensorsDtype::BF16);
    BertWeights loaded = load_hf_checkpoint(dir.path());
    const float original = written.layers[1].value.weight.values[3];
    EXPECT_EQ(loaded.layers[1].value.weight.values[3], bf16_bits_to_float(float_to_bf16_bits(original)));
    EXPECT_NE(loaded.layers[1].value.weight.values[3], original);
}

TEST(HfCheckpoint, AcceptsGammaBetaNamesBareBertModelPrefixAndExtraTensors) {
    testing::ScratchDir dir;
    BertWeights written = random_bert_weights(testing::small_bert_config(), 3);
    auto old_style = [](const std::string& name) {
        std::string n = name;
        if (n.compare(0, 5, "bert.") == 0) n = n.substr(5);
        const auto ln = n.find("LayerNorm.");
        if (ln != std::string::npos) n = n.substr(0, ln) + "LayerNorm." + (n.substr(ln + 10) == "weight" ? "gamma" : "beta");
        return n;
    };
    SafetensorsEntry position_ids{"bert.embeddings.position_ids", SafetensorsDtype::I64, {1, 16},
                                  std::vector<uint8_t>(16 * 8)};
    write_renamed(dir.path(), written, old_style, {position_ids});
    BertWeights loaded = load_hf_checkpoint(dir.path());
    expect_same_weights(written, loaded);
}

TEST(HfCheckpointErrors, MissingDirectoryAndFiles) {
    EXPECT_EQ(checkpoint_load_error("/nonexistent/ckpt"),
              "/nonexistent/ckpt: not a checkpoint directory (expected config.json and model.safetensors)");
    testing::ScratchDir dir;
    EXPECT_EQ(checkpoint_load_error(dir.path()), (dir / "model.safetensors").string() + ": no such file");
    testing::write_text(dir / "pytorch_model.bin", "x");
    EXPECT_EQ(checkpoint_load_error(dir.path()), (dir / "model.safetensors").string() +
                                          ": no such file (pytorch_model.bin is not read: save the model as safetensors)");
    BertWeights w = random_bert_weights(testing::small_bert_config(), 1);
    save_hf_checkpoint(dir.path(), w);
    std::filesystem::remove(dir / "config.json");
    EXPECT_EQ(checkpoint_load_error(dir.path()), (dir / "config.json").string() + ": cannot open the model config: No such file or directory");
}

TEST(HfCheckpointErrors, MissingTensorIsNamedWithItsExpectedShape) {
    testing::ScratchDir dir;
    BertWeights w = random_bert_weights(testing::small_bert_config(), 1);
    write_renamed(dir.path(), w, [](const std::string& n) {
        return n == "bert.encoder.layer.1.intermediate.dense.bias" ? std::string() : n;
    });
    EXPECT_EQ(checkpoint_load_error(dir.path()), (dir / "model.safetensors").string() +
                                          ": missing tensor 'bert.encoder.layer.1.intermediate.dense.bias' "
                                          "(expected shape [16])");
}

TEST(HfCheckpointErrors, CheckpointWithoutClassifierSaysWhatIsNeeded) {
    testing::ScratchDir dir;
    BertWeights w = random_bert_weights(testing::small_bert_config(), 1);
    write_renamed(dir.path(), w, [](const std::string& n) { return n.rfind("classifier", 0) == 0 ? "" : n; });
    EXPECT_THAT(checkpoint_load_error(dir.path()), HasSubstr("missing tensor 'classifier.weight' (expected shape [2, 8]); a "
                                                  "BertForSequenceClassification checkpoint is needed"));
}

TEST(HfCheckpointErrors, ShapeNotMatchingTheConfigNamesTensorAndBothShapes) {
    testing::ScratchDir dir;
    BertWeights w = random_bert_weights(testing::small_bert_config(), 1);
    save_hf_checkpoint(dir.path(), w);
    // The same tensors, but config.json now claims a wider FFN.
    BertConfig wider = w.config;
    wider.intermediate_size = 32;
    testing::write_text(dir / "config.json", bert_config_to_json(wider).dump());
    EXPECT_EQ(checkpoint_load_error(dir.path()), (dir / "model.safetensors").string() +
                                          ": tensor 'bert.encoder.layer.0.intermediate.dense.weight' has shape "
                                          "[16, 8] but " + (dir / "config.json").string() + " implies [32, 8]");
}

TEST(HfCheckpointErrors, BadConfigInTheDirectoryIsReportedFirst) {
    testing::ScratchDir dir;
    BertWeights w = random_bert_weights(testing::small_bert_config(), 1);
    save_hf_checkpoint(dir.path(), w);
    testing::write_text(dir / "config.json", R"({"hidden_size": 8, "num_attention_heads": 3})");
    EXPECT_EQ(checkpoint_load_error(dir.path()),
              (dir / "config.json").string() + ": key 'hidden_size': 8 is not divisible by num_attention_heads (3)");
}

}  // namespace
}  // namespace nsim::kernels

namespace nsim::kernels {
namespace {

// A config.json asking for more layers than the file has tensors for is refused before the layers
// are allocated (a billion layers ended in std::bad_alloc).
TEST(HfCheckpointErrors, MoreLayersThanTheFileHoldsIsRefusedBeforeAllocating) {
    testing::ScratchDir dir;
    BertWeights w = random_bert_weights(testing::small_bert_config(), 1);
    save_hf_checkpoint(dir.path(), w);
    nlohmann::json config;
    std::ifstream(dir / "config.json") >> config;
    config["num_hidden_layers"] = 1000000000;
    std::ofstream(dir / "config.json", std::ios::trunc) << config.dump();
    EXPECT_THAT(checkpoint_load_error(dir.path()), HasSubstr("config.json: num_hidden_layers is 1000000000, but the checkpoint holds "
                                                  "41 tensors, enough for at most 2 layers"));
}

TEST(HfCheckpointErrors, ASafetensorsDirectoryIsNamedAsOne) {
    testing::ScratchDir dir;
    BertWeights w = random_bert_weights(testing::small_bert_config(), 1);
    save_hf_checkpoint(dir.path(), w);
    std::filesystem::remove(dir / "model.safetensors");
    std::filesystem::create_directory(dir / "model.safetensors");
    EXPECT_EQ(checkpoint_load_error(dir.path()), (dir / "model.safetensors").string() + ": is a directory, not a safetensors file");
}

}  // namespace
}  // namespace nsim::kernels
