// The progress bar of `neuron-sim run bert.bin`: ONE long execution (a functional run of a 20-layer
// model, about 2 s of host CPU time here, twice the bar's delay) shows it on a terminal while that
// execution goes on; with stderr not a terminal nothing is printed there, even when stdout is one;
// a short run shows none.
// The terminal is a pseudo-terminal from script(1) (util-linux), which copies what the run writes
// to it onto its own stdout.
#include <fstream>
#include <iterator>
#include <regex>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/command_runner.h"
#include "kernels_test_support.h"
#include "model_cli_support.h"

namespace nsim::kernels {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using testing::ScratchDir;

// The bar appears once a run has taken this long (host time).
constexpr double kBarDelayS = 1.0;
const std::string kProgressInstance = "trn1.2xlarge";

// Small layers, many of them, a large batch: quick to build, slow to compute on the simulated engines.
fs::path build_progress_model(const fs::path& dir, uint32_t layers, uint32_t batch) {
    testing::write_text(dir / "config.json",
                        fmt::format(R"({{"vocab_size": 120, "hidden_size": 128, "num_hidden_layers": {}, "num_attention_heads": 2,
                                        "intermediate_size": 256, "max_position_embeddings": 128}})",
                                    layers));
    const fs::path model = dir / fmt::format("model-{}x{}.bin", layers, batch);
    const auto r = run_command(testing::neuron_build_bert(fmt::format("--model {} --seq 128 --batch {} --dtype fp32 -i {} -o {}",
                                                                      (dir / "config.json").string(), batch, kProgressInstance,
                                                                      model.string())));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return model;
}

// `command` on a pseudo-terminal (stdin, stdout and stderr, unless it redirects them); its output
// as the terminal received it.
test::CommandResult on_a_terminal(const std::string& command) {
    EXPECT_EQ(run_command("script --version").exit_code, 0) << "script(1) from util-linux is needed";
    // -q: no banner, -e: the command's exit code, -c: the command; no typescript file.
    return run_command("script -qec '" + command + "' /dev/null < /dev/null");
}

// The percentages of the bar's frames in `terminal`: each redraw starts with a carriage return,
// "running [#########                     ]  31% (0 of 1 done, 2 s)".
std::vector<int> frames_of_one_execution(const std::string& terminal) {
    static const std::regex frame("\rrunning \\[[# ]{30}\\] +([0-9]+)% \\(0 of 1 done, [0-9]+ s\\)");
    std::vector<int> percents;
    for (auto it = std::sregex_iterator(terminal.begin(), terminal.end(), frame); it != std::sregex_iterator(); ++it)
        percents.push_back(std::stoi((*it)[1]));
    return percents;
}

class RunProgress : public ::testing::Test {
protected:
    static void SetUpTestSuite() { dir_ = new ScratchDir("RunProgress"); }
    static void TearDownTestSuite() { delete dir_; }

    // Built once per process, by the tests that need it (ctest runs each test in its own).
    static const fs::path& long_model() {
        static const fs::path model = build_progress_model(dir_->path(), 20, 32);
        return model;
    }
    static std::string run_once(const fs::path& model, const std::string& options) {
        return testing::neuron_sim(kProgressInstance, "run") + model.string() + " --functional --iterations 1 " + options;
    }

    static ScratchDir* dir_;
};
ScratchDir* RunProgress::dir_ = nullptr;

TEST_F(RunProgress, ALongSingleExecutionShowsTheBarOnATerminalWhileItRuns) {
    const auto r = on_a_terminal(run_once(long_model(), ""));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const std::vector<int> percents = frames_of_one_execution(r.out);
    ASSERT_FALSE(percents.empty()) << "no progress bar while the one execution ran:\n" << r.out;
    EXPECT_LT(percents.front(), 100);
    for (size_t i = 1; i < percents.size(); ++i) EXPECT_GE(percents[i], percents[i - 1]) << "the bar never goes back";
    // The line is cleared before the report, which follows as usual.
    const size_t cleared = r.out.rfind("\r\033[K");
    ASSERT_NE(cleared, std::string::npos) << r.out;
    EXPECT_GT(cleared, r.out.rfind("\rrunning ["));
    EXPECT_NE(r.out.find("latency end to end", cleared), std::string::npos) << r.out;
}

TEST_F(RunProgress, NothingWhenStderrIsNotATerminalEvenIfStdoutIs) {
    const fs::path err = dir_->path() / "stderr.txt";
    const auto r = on_a_terminal(run_once(long_model(), "--json 2>" + err.string()));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    std::ifstream in(err);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "");
    EXPECT_EQ(r.out.find("running ["), std::string::npos) << r.out;
    // Only meaningful if the execution outlasted the bar's delay (the engines' own host time says).
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_GT(j.at("host").at("seconds").get<double>(), kBarDelayS) << "the run is too short to test the bar";
}

TEST_F(RunProgress, AShortRunShowsNoBar) {
    const auto r = on_a_terminal(run_once(build_progress_model(dir_->path(), 1, 1), ""));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out.find("running ["), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("latency end to end"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace nsim::kernels
