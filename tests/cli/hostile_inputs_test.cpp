// Every tool, handed /dev/zero, a directory or a huge sparse file where it expects a file, answers
// with one line on stderr and a non-zero exit - quickly, without reading gigabytes, and never with
// "std::bad_alloc", "vector::", "terminate called" or a SystemC "In file:" line. Each command runs
// under `timeout`, so a hang fails the test instead of stalling it.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/command_runner.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

const std::string kInstance = "trn1.2xlarge";
// Far beyond any limit (the largest is the container's 16 GiB... which a sparse file of zeros fails
// at its first bytes) and costing no disk: a sparse file.
constexpr uintmax_t kHugeSparseBytes = uintmax_t(3) << 30;

class HostileInputs : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        std::string pattern = (fs::temp_directory_path() / "nsim-hostile-XXXXXX").string();
        dir_ = new fs::path(mkdtemp(pattern.data()));
        fs::create_directories(*dir_ / "a-directory");
        std::ofstream(*dir_ / "huge.bin").put('\0');
        fs::resize_file(*dir_ / "huge.bin", kHugeSparseBytes);
        // A small functional BERT with the uncased vocabulary's rows, for --pairs and --vocab.
        std::ofstream(*dir_ / "config.json")
            << R"({"vocab_size": 30522, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                   "intermediate_size": 64, "max_position_embeddings": 64})";
        const auto built = test::run_command(fmt::format("{} bert --model {} --seq 16 --batch 1 --cores 1 -i {} -o {}",
                                                         test::tool_path("neuron-build"), (*dir_ / "config.json").string(),
                                                         kInstance, (*dir_ / "model.bin").string()));
        ASSERT_EQ(built.exit_code, 0) << built.err;
        std::ofstream(*dir_ / "pairs.tsv") << "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tA cat.\tA dog.\n";
        // A program with one input tensor, for --input NAME=FILE.npy.
        std::ofstream(*dir_ / "one-input.s") << ".target v2\n.cores 1\n.tensor x input fp32 [128, 64] device 0x0\n.core 0\nact nop\n";
        const auto assembled = test::run_command(fmt::format("{} {} -o {}", test::tool_path("neuron-as"),
                                                             (*dir_ / "one-input.s").string(), (*dir_ / "one-input.bin").string()));
        ASSERT_EQ(assembled.exit_code, 0) << assembled.err;
    }
    static void TearDownTestSuite() {
        std::error_code ignored;
        fs::remove_all(*dir_, ignored);
        delete dir_;
    }

    static std::vector<std::string> hostile_files() {
        return {"/dev/zero", (*dir_ / "a-directory").string(), (*dir_ / "huge.bin").string()};
    }
    static std::string tool(const std::string& name) { return test::tool_path(name); }
    static std::string sim(const std::string& args) { return tool("neuron-sim") + " --instance " + kInstance + " " + args; }

    // `command` (with {} standing for the hostile file) fails with one clean line for every hostile file.
    static void expect_one_clean_line(const std::string& command, const std::string& env = "") {
        for (const std::string& file : hostile_files()) {
            const std::string line = fmt::format(fmt::runtime(command), file);
            const test::CommandResult r = test::run_command("timeout 300 " + line, env);
            SCOPED_TRACE(line);
            EXPECT_NE(r.exit_code, 124) << "hung";
            EXPECT_NE(r.exit_code, 0);
            EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
            for (const char* bad : {"bad_alloc", "vector::", "terminate called", "In file:", "Error: (E"})
                EXPECT_EQ(r.err.find(bad), std::string::npos) << r.err;
            // Each message names what it was given (the checkpoint's files name their own paths).
            if (line.find("ckpt") == std::string::npos) {
                EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
            }
            if (file.find("a-directory") != std::string::npos) {
                EXPECT_NE(without(r.err, file).find("directory"), std::string::npos) << r.err;
            }
        }
    }
    // `text` with every occurrence of `path` taken out, so that a check for a word does not match the
    // path itself ("a-directory" says "directory" whatever the message).
    static std::string without(std::string text, const std::string& path) {
        for (size_t at; (at = text.find(path)) != std::string::npos;) text.erase(at, path.size());
        return text;
    }
    // A checkpoint directory whose `name` is a link to {} (the hostile file), its other file real.
    static std::string checkpoint_with(const std::string& name, const std::string& file, int index) {
        const fs::path ckpt = *dir_ / fmt::format("ckpt-{}-{}", name, index);
        fs::remove_all(ckpt);
        fs::create_directories(ckpt);
        fs::copy_file(*dir_ / "config.json", ckpt / "config.json");
        std::ofstream(ckpt / "model.safetensors") << "x";
        fs::remove(ckpt / name);
        fs::create_symlink(file, ckpt / name);
        return ckpt.string();
    }

    static inline fs::path* dir_ = nullptr;
};

TEST_F(HostileInputs, NeuronObjdump) { expect_one_clean_line(tool("neuron-objdump") + " {}"); }

TEST_F(HostileInputs, NeuronAs) { expect_one_clean_line(tool("neuron-as") + " {} -o " + (*dir_ / "out.bin").string()); }

TEST_F(HostileInputs, Run) { expect_one_clean_line(sim("run {}")); }

TEST_F(HostileInputs, Profile) { expect_one_clean_line(sim("profile {}")); }

TEST_F(HostileInputs, Serve) { expect_one_clean_line(sim("serve {}")); }

TEST_F(HostileInputs, ConfigFile) {
    expect_one_clean_line(tool("neuron-sim") + " --config {} --instance " + kInstance + " info");
}

TEST_F(HostileInputs, Check) { expect_one_clean_line(sim("check {}")); }

TEST_F(HostileInputs, InputTensorFile) {
    expect_one_clean_line(sim("run " + (*dir_ / "one-input.bin").string() + " --functional --input x={}"));
}

// Every tool that takes --config (chips and instances of your own) refuses a hostile one in one line.
TEST_F(HostileInputs, ConfigFileOfEveryOtherTool) {
    expect_one_clean_line(tool("neuron-ls") + " --config {} --instance " + kInstance);
    expect_one_clean_line(tool("neuron-top") + " --once --config {} --instance " + kInstance);
    expect_one_clean_line(tool("neuron-monitor") + " --reports 1 --config {} --instance " + kInstance);
    expect_one_clean_line(tool("neuron-build") + " bert --model bert-base --seq 16 --batch 1 --cores 1 -i " + kInstance +
                          " --config {} -o " + (*dir_ / "out.bin").string());
}

TEST_F(HostileInputs, MonitorConfigFile) {
    expect_one_clean_line(tool("neuron-monitor") + " --config-file {} --reports 1 --instance " + kInstance);
}

// --weights expects a directory: a device or a huge file there is "not a directory", not "no such".
TEST_F(HostileInputs, WeightsThatAreNotADirectory) {
    for (const std::string& file : {std::string("/dev/zero"), (*dir_ / "huge.bin").string()}) {
        const test::CommandResult r = test::run_command(fmt::format(
            "timeout 300 {} bert --weights {} --seq 16 --batch 1 --cores 1 -i {} -o {}", tool("neuron-build"), file, kInstance,
            (*dir_ / "out.bin").string()));
        SCOPED_TRACE(file);
        EXPECT_NE(r.exit_code, 0);
        EXPECT_EQ(r.err, "neuron-build: --weights " + file + ": not a directory (a checkpoint directory expected)\n");
    }
}

TEST_F(HostileInputs, Pairs) {
    expect_one_clean_line(sim("run " + (*dir_ / "model.bin").string() + " --functional --pairs {}"));
}

TEST_F(HostileInputs, Vocabulary) {
    expect_one_clean_line(sim("run " + (*dir_ / "model.bin").string() + " --functional --pairs " +
                              (*dir_ / "pairs.tsv").string() + " --vocab {}"));
}

TEST_F(HostileInputs, ModelConfig) {
    expect_one_clean_line(tool("neuron-build") + " bert --model {} --seq 16 --batch 1 --cores 1 -i " + kInstance +
                          " -o " + (*dir_ / "out.bin").string());
}

TEST_F(HostileInputs, CheckpointFiles) {
    int index = 0;
    for (const char* name : {"config.json", "model.safetensors"})
        for (const std::string& file : hostile_files()) {
            const std::string ckpt = checkpoint_with(name, file, index++);
            const test::CommandResult r = test::run_command(fmt::format(
                "timeout 300 {} bert --weights {} --seq 16 --batch 1 --cores 1 -i {} -o {}", tool("neuron-build"), ckpt,
                kInstance, (*dir_ / "out.bin").string()));
            SCOPED_TRACE(ckpt + "/" + name + " -> " + file);
            EXPECT_NE(r.exit_code, 124) << "hung";
            EXPECT_NE(r.exit_code, 0);
            EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
            EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
            if (file.find("a-directory") != std::string::npos) {
                EXPECT_NE(without(without(r.err, file), ckpt).find("directory"), std::string::npos) << r.err;
            }
            for (const char* bad : {"bad_alloc", "vector::", "terminate called", "In file:"})
                EXPECT_EQ(r.err.find(bad), std::string::npos) << r.err;
        }
}

TEST_F(HostileInputs, StateDirectoryOfTheViewers) {
    for (const char* file : {"/dev/zero", "huge.bin"}) {
        const std::string home = file[0] == '/' ? file : (*dir_ / file).string();
        for (const std::string& viewer : {tool("neuron-ls") + " --instance " + kInstance,
                                          tool("neuron-top") + " --once --instance " + kInstance,
                                          tool("neuron-monitor") + " --reports 1 --instance " + kInstance, sim("rmmod neuron")}) {
            const test::CommandResult r = test::run_command("timeout 300 " + viewer, "NEURON_SIM_HOME=" + home);
            SCOPED_TRACE(viewer + " with NEURON_SIM_HOME=" + home);
            EXPECT_NE(r.exit_code, 0);
            EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
            EXPECT_NE(r.err.find("is not a directory"), std::string::npos) << r.err;
        }
    }
}

TEST_F(HostileInputs, OutputThatIsADirectoryLeavesNothingBehind) {
    const fs::path out = *dir_ / "a-directory";
    const test::CommandResult r = test::run_command(fmt::format("{} bert --model {} --seq 16 --batch 1 --cores 1 -i {} -o {}",
                                                                tool("neuron-build"), (*dir_ / "config.json").string(),
                                                                kInstance, out.string()));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(r.err, "neuron-build: -o " + out.string() + ": is a directory, not a file to write the program to\n");
    EXPECT_FALSE(fs::exists(*dir_ / "a-directory.embeddings.safetensors"));
}

}  // namespace
}  // namespace nsim
