// Values a user can type that used to hang a run, wrap a length, or mislead: each is now refused in
// one line, naming what is wrong, and the run ends.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/command_runner.h"
#include "isa/container_io.h"
#include "isa/text_format.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

const std::string kInstance = "trn1.2xlarge";

class HostileValues : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "nsim-values-XXXXXX").string();
        dir_ = mkdtemp(pattern.data());
    }
    void TearDown() override {
        std::error_code ignored;
        fs::remove_all(dir_, ignored);
    }
    // The program assembled but written without validation, as a hand-made or damaged file is.
    fs::path unvalidated_program(const std::string& text) const {
        const fs::path file = dir_ / "program.bin";
        isa::write_file(file, isa::write_container(isa::assemble(text, "hostile.s").container));
        return file;
    }
    fs::path source(const std::string& text) const {
        const fs::path file = dir_ / "program.s";
        std::ofstream(file) << text;
        return file;
    }
    static test::CommandResult run(const std::string& command) { return test::run_command("timeout 300 " + command); }
    static void expect_one_line(const test::CommandResult& r, const std::string& needle) {
        EXPECT_NE(r.exit_code, 124) << "hung";
        EXPECT_NE(r.exit_code, 0);
        EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    }
    static std::string sim(const std::string& args) {
        return test::tool_path("neuron-sim") + " --instance " + kInstance + " " + args;
    }

    fs::path dir_;
};

// Stride-0 dimensions of count 2^32-1 named ~2^130 elements; the timing path spun on its bursts.
const std::string kEndlessDma = R"(.target v2
.cores 1
.tensor x input fp32 [128, 64] device 0x0
.core 0
dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[0,4294967295],[0,4294967295],[0,4294967295],[0,4294967295]], src=fp32 dram:x +0 [[0,128],[0,4294967295],[0,4294967295],[0,4294967295],[0,4294967295]]
)";

TEST_F(HostileValues, AnOperandOfMoreThan2To32ElementsIsRefusedOnEveryPath) {
    const std::string needle = "names more than 4294967296 elements";
    expect_one_line(run(sim("run " + unvalidated_program(kEndlessDma).string())), needle);
    expect_one_line(run(sim("run " + unvalidated_program(kEndlessDma).string() + " --functional")), needle);
    const auto assembled = run(test::tool_path("neuron-as") + " " + source(kEndlessDma).string() + " -o " +
                               (dir_ / "out.bin").string());
    EXPECT_NE(assembled.exit_code, 0);
    EXPECT_NE(assembled.err.find(needle), std::string::npos) << assembled.err;
}

TEST_F(HostileValues, ATensorOffsetThatWrapsPast2To64IsRefused) {
    const fs::path program = unvalidated_program(R"(.target v2
.cores 1
.tensor x input fp32 [128, 64] device 0xfffffffffffffff0
.core 0
act nop
)");
    expect_one_line(run(sim("run " + program.string())), "tensor 'x' at offset 0xfffffffffffffff0");
}

TEST_F(HostileValues, NamesLongerThanTheFormatHoldsAreRefusedNotWrapped) {
    const std::string long_name(65536, 'k');
    for (const std::string& line : {".meta " + long_name + " \"v\"", ".tensor " + long_name + " input fp32 [4] device 0x0",
                                    ".sem " + long_name + " 0"}) {
        const auto r = run(test::tool_path("neuron-as") + " " + source(".target v2\n.cores 1\n" + line + "\n.core 0\nact nop\n").string() +
                           " -o " + (dir_ / "out.bin").string());
        expect_one_line(r, "bytes long; the format holds at most 65535");
    }
}

TEST_F(HostileValues, ServeRefusesMoreRequestsThanItKeepsAndANanDelay) {
    const fs::path model = dir_ / "model.bin";
    std::ofstream(dir_ / "config.json") << R"({"vocab_size": 120, "hidden_size": 32, "num_hidden_layers": 1,
        "num_attention_heads": 2, "intermediate_size": 64, "max_position_embeddings": 64})";
    const auto built = run(fmt::format("{} bert --model {} --seq 16 --batch 1 --cores 1 --timing-only -i {} -o {}",
                                       test::tool_path("neuron-build"), (dir_ / "config.json").string(), kInstance,
                                       model.string()));
    ASSERT_EQ(built.exit_code, 0) << built.err;
    expect_one_line(run(sim("serve " + model.string() + " --clients 100000 --requests 1000000")),
                    "100000 clients x 1000000 requests is more than the 10000000 requests");
    expect_one_line(run(sim("serve " + model.string() + " --max-batch-delay nan")), "--max-batch-delay: nan is not a finite number");
    // A file that is not a model: the message names it.
    const fs::path garbage = dir_ / "garbage.bin";
    std::ofstream(garbage) << "NSIMEXE" << std::string(100, '\0');
    expect_one_line(run(sim("serve " + garbage.string())), garbage.string() + ": ");
}

TEST_F(HostileValues, NegativeSeedIsRefused) {
    const auto r = run(test::tool_path("neuron-build") + " bert --model bert-base --seed -1 -i " + kInstance + " -o " +
                       (dir_ / "out.bin").string());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--seed"), std::string::npos) << r.err;
}

TEST_F(HostileValues, NeuronTopWithoutATerminalNeedsOnce) {
    const auto modprobe = test::run_command(sim("modprobe neuron"), "NEURON_SIM_HOME=" + dir_.string());
    ASSERT_EQ(modprobe.exit_code, 0) << modprobe.err;
    const auto r = test::run_command("timeout 60 " + test::tool_path("neuron-top") + " --instance " + kInstance + " </dev/null",
                                     "NEURON_SIM_HOME=" + dir_.string());
    expect_one_line(r, "the live view needs a terminal; use --once to print one frame");
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
}

}  // namespace
}  // namespace nsim
