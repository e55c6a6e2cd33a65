// neuron-build bert as a user runs it: programs that neuron-sim runs, the metadata the runner needs,
// and every user error as one line on stderr with a non-zero exit.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bert/bert_config.h"
#include "bert/hf_checkpoint.h"
#include "bert/random_weights.h"
#include "common/command_runner.h"
#include "isa/container_io.h"
#include "kernels_test_support.h"

namespace nsim::kernels {
namespace {

using test::run_command;
using test::tool_path;
using testing::ScratchDir;

BertConfig tiny_config() {
    BertConfig c;
    c.vocab_size = 120;
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 256;
    c.max_position_embeddings = 64;
    return c;
}

void write_json(const std::filesystem::path& path, const nlohmann::json& j) {
    std::ofstream out(path);
    out << j.dump(2);
}

std::string build(const std::string& args) { return tool_path("neuron-build") + " bert " + args; }

std::string metadata(const isa::Container& c, const std::string& key) { return c.metadata_value(key); }

// One line on stderr, a non-zero exit, the message containing `needle`.
void expect_user_error(const test::CommandResult& r, const std::string& needle) {
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(r.err.rfind("neuron-build: ", 0), 0u) << r.err;
}

TEST(NeuronBuild, ConfigJsonWithRandomWeightsWritesARunnableProgram) {
    ScratchDir dir;
    write_json(dir / "config.json", bert_config_to_json(tiny_config()));
    const auto out = dir / "bert.bin";
    const auto r = run_command(build("--model " + (dir / "config.json").string() +
                                     " --seq 32 --batch 2 --dtype bf16 --cores 2 --instance inf2.xlarge --embedding device -o " +
                                     out.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const isa::Container c = isa::read_container(isa::read_file(out));
    EXPECT_EQ(c.generation, 2u);
    EXPECT_EQ(c.cores_needed, 2u);
    EXPECT_EQ(metadata(c, "model"), "config");
    EXPECT_EQ(metadata(c, "batch"), "2");
    EXPECT_EQ(metadata(c, "seq_len"), "32");
    EXPECT_EQ(metadata(c, "dtype"), "bf16");
    EXPECT_EQ(metadata(c, "embedding"), "device");
    EXPECT_EQ(metadata(c, "parallel"), "data");
    EXPECT_EQ(metadata(c, "inputs"), "input_ids,token_type_ids,attention_mask");
    EXPECT_EQ(metadata(c, "outputs"), "logits,encoder_output");
    EXPECT_EQ(metadata(c, "sequences_per_execution"), "4");
    bool has_weight_data = false;
    for (const auto& t : c.tensors) has_weight_data |= t.role == isa::TensorRole::Weight && !t.data.empty();
    EXPECT_TRUE(has_weight_data);
    const auto run = run_command(tool_path("neuron-sim") + " --instance inf2.xlarge run " + out.string() + " --json");
    EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(NeuronBuild, SameSeedSameBytes) {
    ScratchDir dir;
    write_json(dir / "config.json", bert_config_to_json(tiny_config()));
    const std::string common = "--model " + (dir / "config.json").string() + " --seq 16 --dtype fp32 -o ";
    ASSERT_EQ(run_command(build(common + (dir / "a.bin").string())).exit_code, 0);
    ASSERT_EQ(run_command(build(common + (dir / "b.bin").string())).exit_code, 0);
    ASSERT_EQ(run_command(build("--seed 2 " + common + (dir / "c.bin").string())).exit_code, 0);
    EXPECT_EQ(isa::read_file(dir / "a.bin"), isa::read_file(dir / "b.bin"));
    EXPECT_NE(isa::read_file(dir / "a.bin"), isa::read_file(dir / "c.bin"));
}

TEST(NeuronBuild, HuggingFaceCheckpointAndPipeline) {
    ScratchDir dir;
    save_hf_checkpoint(dir / "ckpt", random_bert_weights(tiny_config(), 3));
    // Named after the checkpoint's directory, also when given with a trailing slash.
    const auto r = run_command(build("--weights " + (dir / "ckpt").string() +
                                     "/ --seq 16 --batch 1 --dtype mixed --cores 2 --parallel pipeline -o " +
                                     (dir / "p.bin").string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("p.bin: ckpt, "), std::string::npos) << r.out;
    const isa::Container c = isa::read_container(isa::read_file(dir / "p.bin"));
    EXPECT_EQ(c.generation, 1u);  // default instance inf1.2xlarge
    EXPECT_EQ(metadata(c, "parallel"), "pipeline");
    EXPECT_EQ(metadata(c, "weights"), "included");
    EXPECT_EQ(metadata(c, "embedding"), "host");
    EXPECT_EQ(metadata(c, "inputs"), "embeddings,attention_mask");
    EXPECT_EQ(run_command(tool_path("neuron-sim") + " --instance inf1.2xlarge run " + (dir / "p.bin").string()).exit_code, 0);
}

TEST(NeuronBuild, TimingOnlyBertLargeIsSmallAndRuns) {
    ScratchDir dir;
    const auto r = run_command(build("--model bert-large --seq 128 --batch 4 --cores 4 --dtype mixed --timing-only -o " +
                                     (dir / "bl.bin").string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_LT(std::filesystem::file_size(dir / "bl.bin"), 64u << 20);
    EXPECT_EQ(run_command(tool_path("neuron-sim") + " --instance inf1.2xlarge run " + (dir / "bl.bin").string()).exit_code,
              0);
}

TEST(NeuronBuildErrors, MissingWeightsDirectory) {
    ScratchDir dir;
    expect_user_error(run_command(build("--weights " + (dir / "nope").string() + " --seq 16 -o " + (dir / "x.bin").string())),
                      "no such directory");
}

TEST(NeuronBuildErrors, MissingSafetensorsFile) {
    ScratchDir dir;
    std::filesystem::create_directories(dir / "ckpt");
    write_json(dir / "ckpt" / "config.json", bert_config_to_json(tiny_config()));
    expect_user_error(run_command(build("--weights " + (dir / "ckpt").string() + " --seq 16 -o " + (dir / "x.bin").string())),
                      "model.safetensors");
}

TEST(NeuronBuildErrors, CheckpointShapesThatDoNotMatchItsConfig) {
    ScratchDir dir;
    save_hf_checkpoint(dir / "ckpt", random_bert_weights(tiny_config(), 3));
    BertConfig wider = tiny_config();
    wider.intermediate_size = 512;
    write_json(dir / "ckpt" / "config.json", bert_config_to_json(wider));
    expect_user_error(run_command(build("--weights " + (dir / "ckpt").string() + " --seq 16 -o " + (dir / "x.bin").string())),
                      "intermediate");
}

TEST(NeuronBuildErrors, ConfigJsonWithInconsistentShapes) {
    ScratchDir dir;
    nlohmann::json j = bert_config_to_json(tiny_config());
    j["hidden_size"] = 100;
    j["num_attention_heads"] = 3;
    write_json(dir / "bad.json", j);
    expect_user_error(run_command(build("--model " + (dir / "bad.json").string() + " --seq 16 -o " + (dir / "x.bin").string())),
                      "hidden_size");
}

TEST(NeuronBuildErrors, HeadSizeTheAttentionKernelDoesNotTile) {
    ScratchDir dir;
    nlohmann::json j = bert_config_to_json(tiny_config());
    j["hidden_size"] = 192;
    j["num_attention_heads"] = 2;
    write_json(dir / "bad.json", j);
    expect_user_error(run_command(build("--model " + (dir / "bad.json").string() + " --seq 16 -o " + (dir / "x.bin").string())),
                      "head size 96");
}

TEST(NeuronBuildErrors, BatchThatDoesNotFitTheCore) {
    ScratchDir dir;
    expect_user_error(run_command(build("--model bert-large --seq 512 --batch 16 --timing-only -o " + (dir / "x.bin").string())),
                      "does not fit");
}

TEST(NeuronBuildErrors, ModelThatDoesNotFitDeviceMemory) {
    ScratchDir dir;
    nlohmann::json j = bert_config_to_json(tiny_config());
    j["vocab_size"] = 40000000;  // a 10 GB embedding table
    write_json(dir / "huge.json", j);
    expect_user_error(run_command(build("--model " + (dir / "huge.json").string() +
                                        " --embedding device --seq 16 --timing-only -o " + (dir / "x.bin").string())),
                      "bytes of device memory");
}

TEST(NeuronBuildErrors, MoreCoresThanTheInstanceHas) {
    ScratchDir dir;
    expect_user_error(run_command(build("--model bert-base --seq 128 --cores 5 --timing-only -o " + (dir / "x.bin").string())),
                      "inf1.2xlarge has 4");
}

TEST(NeuronBuildErrors, SequenceLongerThanThePositionTable) {
    ScratchDir dir;
    expect_user_error(run_command(build("--model bert-base --seq 600 --timing-only -o " + (dir / "x.bin").string())),
                      "max_position_embeddings");
}

TEST(NeuronBuildErrors, UnknownModel) {
    ScratchDir dir;
    expect_user_error(run_command(build("--model bert-huge --seq 16 -o " + (dir / "x.bin").string())), "bert-huge");
}

TEST(NeuronBuildErrors, UnknownInstance) {
    ScratchDir dir;
    const auto r = run_command(build("--model bert-base --instance inf9.small --timing-only -o " + (dir / "x.bin").string()));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
}

}  // namespace
}  // namespace nsim::kernels
