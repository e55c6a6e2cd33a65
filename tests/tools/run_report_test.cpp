// The report `neuron-sim run` prints by default is for people: the README's main job (BERT-large on
// inf1.2xlarge, four cores with their DMA queues) fits on one screen, its PCIe bytes stand where its
// PCIe time does; --verbose keeps the per-queue table; --json keeps its keys and names the instance.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "common/command_runner.h"
#include "common/temp_directory.h"

namespace nsim {
namespace {

constexpr int kOneScreen = 50;

class RunReport : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDirectory;
        model_ = (dir_->path() / "bert.bin").string();
        // tools/scripts/main.sh's model.
        const auto built = test::run_command(test::tool_path("neuron-build") +
                                             " bert --model bert-large --seq 128 --batch 4 --cores 4 --parallel data --dtype mixed "
                                             "--embedding host --timing-only --instance inf1.2xlarge -o " + model_);
        ASSERT_EQ(built.exit_code, 0) << built.err;
    }
    static void TearDownTestSuite() { delete dir_; }
    static test::CommandResult run(const std::string& options) {
        return test::run_command(test::tool_path("neuron-sim") + " --instance inf1.2xlarge run " + model_ + " " + options);
    }

    static test::TempDirectory* dir_;
    static std::string model_;
};
test::TempDirectory* RunReport::dir_ = nullptr;
std::string RunReport::model_;

TEST_F(RunReport, TheMainJobsDefaultReportFitsOnOneScreen) {
    const auto r = run("");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_LE(test::count_lines(r.out), kOneScreen) << r.out;
    // One line per core and engine kind: each core's DMA queues summed on one line.
    for (int core = 0; core < 4; ++core) {
        EXPECT_NE(r.out.find("core" + std::to_string(core) + ".dma x"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("core" + std::to_string(core) + ".dma0 "), std::string::npos) << r.out;
    }
    EXPECT_NE(r.out.find("top stalls"), std::string::npos) << r.out;
    // PCIe time comes with the PCIe bytes that took it, never "0.0 B" beside it.
    EXPECT_NE(r.out.find("bytes of inputs and outputs over PCIe"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("PCIe:           0.0 B"), std::string::npos) << r.out;
}

TEST_F(RunReport, VerboseListsEveryQueue) {
    const auto r = run("--verbose");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("core0.dma0 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("core3.dma1 "), std::string::npos) << r.out;
    EXPECT_GT(test::count_lines(r.out), kOneScreen);
}

TEST_F(RunReport, JsonKeepsItsKeysAndNamesTheInstance) {
    const auto r = run("--json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["instance"], "inf1.2xlarge");
    for (const char* key : {"cycles", "time_us", "engines", "dma", "device_memory", "pcie", "latency_ms", "device_latency_ms",
                            "end_to_end_ms", "load_time_ms", "throughput_per_s"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_TRUE(j["engines"].contains("core0.dma0"));
    EXPECT_GT(j["execution_pcie_bytes"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace nsim
