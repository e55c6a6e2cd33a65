// `neuron-sim run` as a user runs it: the report (text and --json), the trace file, and one-line
// errors for programs the machine cannot run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/command_runner.h"
#include "isa/container_io.h"
#include "isa/text_format.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

std::string write_program(const std::string& name, const std::string& text) {
    const fs::path path = fs::path(testing::TempDir()) / name;
    isa::write_file(path, isa::write_container(isa::assemble(text, name).container));
    return path.string();
}

const std::string kProgram =
    ".target v2\n.cores 1\n.tensor X input fp32 [128, 512] device 0x0\n.sem s 0\n.core 0\n"
    "dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,512]], src=fp32 dram:X +0 [[512,128],[1,512]], signal=s\n"
    "act activation dst=fp32 sbuf[0:128] +4096 [[1,512]], src=fp32 sbuf[0:128] +0 [[1,512]], func=exp, scale=1, "
    "bias=none, reduce_op=none, reduce_dst=none, wait=s>=1\n";

std::string sim() { return test::tool_path("neuron-sim"); }

TEST(RunCommand, JsonReportHasCyclesTimeAndEngines) {
    const std::string prog = write_program("run_json.bin", kProgram);
    const auto r = test::run_command(sim() + " --instance trn1.2xlarge run " + prog + " --json --iterations 2");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["cycles"].get<uint64_t>(), 0u);
    EXPECT_GT(j["time_us"].get<double>(), 0.0);
    EXPECT_EQ(j["iterations"], 2);
    EXPECT_EQ(j["instructions"], 4);
    ASSERT_TRUE(j["engines"].contains("core0.act"));
    EXPECT_EQ(j["engines"]["core0.act"]["instructions"], 2);
    const double busy = j["engines"]["core0.dma0"]["busy_pct"];
    EXPECT_GT(busy, 50.0);
    EXPECT_LE(busy, 100.0);
    EXPECT_EQ(j["dma"]["bytes"], 2 * 128 * 512 * 4);
    EXPECT_GT(j["device_memory"]["bytes_per_s"].get<double>(), 0.0);
    // cycles count the tensor engine's clock
    EXPECT_NEAR(j["cycles"].get<double>(), j["time_us"].get<double>() * 1e-6 * j["clock_hz"].get<double>(), 1.0);
}

TEST(RunCommand, TextReportAndTraceFile) {
    const std::string prog = write_program("run_text.bin", kProgram);
    const std::string trace = (fs::path(testing::TempDir()) / "run_trace.json").string();
    const auto r = test::run_command(sim() + " --instance trn1.2xlarge run " + prog + " --functional --trace " + trace);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("busy %"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("core0.dma0"), std::string::npos) << r.out;
    std::ifstream in(trace);
    const nlohmann::json t = nlohmann::json::parse(in);
    int slices = 0;
    for (const auto& e : t["traceEvents"]) slices += e["ph"] == "X";
    EXPECT_EQ(slices, 2);
}

void expect_one_line_error(const test::CommandResult& r, const std::string& fragment) {
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(RunCommand, ProgramForAnotherGenerationIsAnError) {
    const std::string prog = write_program("run_v2.bin", kProgram);
    expect_one_line_error(test::run_command(sim() + " --instance inf1.2xlarge run " + prog),
                          "the program is for NeuronCore-v2, inf1.2xlarge has NeuronCore-v1");
}

TEST(RunCommand, ProgramNeedingMoreCoresThanTheInstanceIsAnError) {
    const std::string prog = write_program("run_3cores.bin", ".target v2\n.cores 3\n.core 2\nact nop\n");
    expect_one_line_error(test::run_command(sim() + " --instance trn1.2xlarge run " + prog),
                          "the program needs 3 NeuronCores, trn1.2xlarge has 2");
}

TEST(RunCommand, UnreadableProgramIsAnError) {
    expect_one_line_error(test::run_command(sim() + " --instance trn1.2xlarge run /nonexistent/prog.bin"),
                          "/nonexistent/prog.bin");
    const fs::path garbage = fs::path(testing::TempDir()) / "garbage.bin";
    std::ofstream(garbage) << "not a program";
    expect_one_line_error(test::run_command(sim() + " --instance trn1.2xlarge run " + garbage.string()), "neuron-sim: ");
}

TEST(RunCommand, UnwritableTraceIsAnError) {
    const std::string prog = write_program("run_trace_err.bin", kProgram);
    expect_one_line_error(test::run_command(sim() + " --instance trn1.2xlarge run " + prog + " --trace /nonexistent/t.json"),
                          "cannot write the trace file /nonexistent/t.json");
}

TEST(RunCommand, DeadlockEndsWithAReportAndAFailure) {
    const std::string prog = write_program("run_deadlock.bin", ".target v2\n.cores 1\n.sem never 0\n.core 0\nact nop wait=never>=1\n");
    const auto r = test::run_command(sim() + " --instance trn1.2xlarge run " + prog);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("deadlock at"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("waits for never >= 1 (it is 0)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nsim
