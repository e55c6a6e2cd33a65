// `neuron-sim run` as a user runs it: the report (text and --json), the trace file, and one-line
// errors for programs the machine cannot run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/temp_directory.h"
#include "cli_test_support.h"
#include "common/command_runner.h"
#include "isa/container_io.h"
#include "isa/text_format.h"

namespace nsim {
namespace {

using test::neuron_sim_path;
namespace fs = std::filesystem;

std::string write_program(const std::string& name, const std::string& text) {
    const fs::path path = test::scratch_path(name);
    isa::write_file(path, isa::write_container(isa::assemble(text, name).container));
    return path.string();
}

const std::string kProgram =
    ".target v2\n.cores 1\n.tensor X input fp32 [128, 512] device 0x0\n.sem s 0\n.core 0\n"
    "dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,512]], src=fp32 dram:X +0 [[512,128],[1,512]], signal=s\n"
    "act activation dst=fp32 sbuf[0:128] +4096 [[1,512]], src=fp32 sbuf[0:128] +0 [[1,512]], func=exp, scale=1, "
    "bias=none, reduce_op=none, reduce_dst=none, wait=s>=1\n";

TEST(RunCommand, JsonReportHasCyclesTimeAndEngines) {
    const std::string prog = write_program("run_json.bin", kProgram);
    const auto r = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --json --iterations 2");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["cycles"].get<uint64_t>(), 0u);
    EXPECT_GT(j["time_us"].get<double>(), 0.0);
    // Two executions through the runtime; the engines' figures are the last one's.
    EXPECT_EQ(j["iterations"], 2);
    EXPECT_EQ(j["instructions"], 2);
    ASSERT_TRUE(j["engines"].contains("core0.act"));
    EXPECT_EQ(j["engines"]["core0.act"]["instructions"], 1);
    const double busy = j["engines"]["core0.dma0"]["busy_pct"];
    EXPECT_GT(busy, 50.0);
    EXPECT_LE(busy, 100.0);
    EXPECT_EQ(j["dma"]["bytes"], 128 * 512 * 4);
    EXPECT_GT(j["device_memory"]["bytes_per_s"].get<double>(), 0.0);
    // cycles count the tensor engine's clock
    EXPECT_NEAR(j["cycles"].get<double>(), j["time_us"].get<double>() * 1e-6 * j["clock_hz"].get<double>(), 1.0);
}

// --iterations N: statistics over all N executions and the host time of the whole run.
TEST(RunCommand, IterationsReportStatisticsOverEveryExecution) {
    const std::string prog = write_program("run_iterations.bin", kProgram);
    const auto r = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --json --iterations 5");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["iterations"], 5);
    for (const char* group : {"latency_ms", "device_latency_ms"}) {
        const auto& l = j[group];
        for (const char* key : {"min", "mean", "max", "p50", "p99"}) ASSERT_TRUE(l.contains(key)) << group << " " << key;
        EXPECT_GT(l["min"].get<double>(), 0.0);
        EXPECT_LE(l["min"].get<double>(), l["mean"].get<double>());
        EXPECT_LE(l["mean"].get<double>(), l["max"].get<double>());
        EXPECT_LE(l["p50"].get<double>(), l["p99"].get<double>());
    }
    EXPECT_LE(j["device_latency_ms"]["max"].get<double>(), j["latency_ms"]["max"].get<double>());
    // The whole run's host time covers every execution, more than the last one's alone.
    EXPECT_GT(j["run_host_seconds"].get<double>(), j["host"]["seconds"].get<double>());
    const auto text = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --iterations 5");
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("executions                  5"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("for the whole run (load and 5 executions)"), std::string::npos) << text.out;
}

TEST(RunCommand, TextReportAndTraceFile) {
    const std::string prog = write_program("run_text.bin", kProgram);
    const std::string trace = test::scratch_path("run_trace.json").string();
    const auto r = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --functional --verbose --trace " + trace);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("busy %"), std::string::npos) << r.out;   // --verbose: every queue by name
    EXPECT_NE(r.out.find("core0.dma0"), std::string::npos) << r.out;
    std::ifstream in(trace);
    const nlohmann::json t = nlohmann::json::parse(in);
    int slices = 0, waits = 0;
    for (const auto& e : t["traceEvents"]) {
        slices += e["ph"] == "X" && e["cat"] != "wait" && e["cat"] != "host";  // the engines' instructions
        waits += e["ph"] == "X" && e["cat"] == "wait";
    }
    EXPECT_EQ(slices, 2);
    EXPECT_EQ(waits, 1) << "act waits for the DMA";
}

using test::expect_one_line_error;

TEST(RunCommand, ProgramForAnotherGenerationIsAnError) {
    const std::string prog = write_program("run_v2.bin", kProgram);
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance inf1.2xlarge run " + prog),
                          "the program is for NeuronCore-v2, inf1.2xlarge has NeuronCore-v1");
}

TEST(RunCommand, ProgramNeedingMoreCoresThanTheInstanceIsAnError) {
    const std::string prog = write_program("run_3cores.bin", ".target v2\n.cores 3\n.core 2\nact nop\n");
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog),
                          "the program needs 3 NeuronCores, trn1.2xlarge has 2");
}

TEST(RunCommand, UnreadableProgramIsAnError) {
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run /nonexistent/prog.bin"),
                          "neuron-sim: /nonexistent/prog.bin: cannot open the container: No such file or directory");
    const fs::path garbage = test::scratch_path("garbage.bin");
    std::ofstream(garbage) << "not a program";
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + garbage.string()),
                          "neuron-sim: " + garbage.string() + ": truncated: the file is 13 bytes, shorter than the ");
    const fs::path text = test::scratch_path("assembly_text.bin");
    std::ofstream(text) << kProgram << kProgram;  // the source, not the assembled program
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + text.string()),
                          text.string() + ": header: wrong magic (not a neuron-sim executable)");
}

TEST(RunCommand, AProgramTheValidatorRejectsIsAnError) {
    // An SBUF operand past the end of a partition (192 KiB on NeuronCore-v2), and a second problem.
    const std::string prog = write_program(
        "run_invalid.bin", ".target v2\n.cores 1\n.core 0\n"
                           "dve tensor_copy dst=fp32 sbuf[0:128] +196608 [[1,16]], src=fp32 sbuf[0:128] +0 [[1,16]]\n"
                           "dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,16]], src=fp32 sbuf[0:128] +0 [[1,16]], wait=$999>=1\n");
    const auto r = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog);
    expect_one_line_error(r, "(core 0 queue dve), instruction 0: operand 'dst': bytes [196608, 196672) of each partition "
                             "outside sbuf (196608 bytes per partition) (and 1 more)");
    EXPECT_EQ(r.err.rfind("neuron-sim: invalid program: section ", 0), 0u) << r.err;
}

TEST(RunCommand, TensorsLargerThanTheMachinesMemoryAreAnError) {
    // 64 GiB of device tensors: more than a trn1 device's memory (2 x 16 GiB), let alone one channel.
    const std::string device = write_program("run_big_device.bin",
                                             ".target v2\n.cores 1\n.tensor W scratch fp32 [1024, 16777216] device 0x0\n"
                                             ".core 0\nact nop\n");
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + device),
                          "the program's device tensors need 68719476736 bytes");
    // 64 GiB of host tensors on a host with 32 GiB.
    const std::string host = write_program("run_big_host.bin",
                                           ".target v2\n.cores 1\n.tensor H input fp32 [1024, 16777216] host 0x0\n"
                                           ".core 0\nact nop\n");
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + host),
                          "neuron-sim: the program's host tensors need 68719476736 bytes, trn1.2xlarge has 34359738368 "
                          "bytes of host memory");
}

TEST(RunCommand, AnInstructionThatCannotBeComputedNamesItself) {
    // Valid for the validator, but bn_aggr needs whole (count, mean, m2) groups: only a functional run computes it.
    const std::string prog = write_program(
        "run_bn_aggr.bin", ".target v2\n.cores 1\n.core 0\n"
                           "dve bn_aggr dst=fp32 sbuf[0:128] +0 [[1,2]], src=fp32 sbuf[0:128] +64 [[1,4]]\n");
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --functional"),
                          "neuron-sim: NRT:nrt_execute core 0 queue dve, instruction 0 (bn_aggr): bn_aggr: operand 'src': has 4 elements "
                          "per partition, needs whole (count, mean, m2) groups");
    const auto timing_only = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog);
    EXPECT_EQ(timing_only.exit_code, 0) << timing_only.err;
}

TEST(RunCommand, AGatherIndexOutsideTheTableFailsTheExecutionInOneLine) {
    // Indices 3, 7, 40000, 1 into a table of 8 rows: the third is outside it. (A timing run of a bare
    // program leaves device memory empty - zeros, all inside the table - while one through the
    // runtime has its inputs there and checks them too.)
    const std::string prog = write_program(
        "run_gather_outside.bin",
        ".target v2\n.cores 1\n.tensor ids weight int32 [4] device 0x0\n.data ids 0300000007000000409c000001000000\n"
        ".tensor table weight fp32 [8, 4] device 0x100\n.core 0\n"
        "dma0 dma_gather dst=fp32 sbuf[0:4] +0 [[1,4]], table=fp32 dram:table +0 [[4,8],[1,4]], "
        "indices=int32 dram:ids +0 [[1,4],[1,1]]\n");
    const std::string message = "core 0 queue dma0, instruction 0 (dma_gather): index 40000 (element 2 of the "
                                "indices) is outside the table's 8 rows";
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --functional"), message);
}

TEST(RunCommand, CollectiveAndSendPeerErrorsAreOneLine) {
    const std::string two = ".target v2\n.cores 2\n.tensor G scratch fp32 [128, 64] device 0x0\n";
    const std::string to_self = write_program(
        "run_send_self.bin", two + ".core 0\ndma0 send src=fp32 sbuf[0:128] +0 [[1,64]], peer_core=0, channel=0\n");
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + to_self),
                          "neuron-sim: NRT:nrt_execute core 0 queue dma0, instruction 0 (send): peer core 0 is not another core of the program");
    const std::string outside = write_program(
        "run_outside_group.bin",
        two + ".core 1\ndma0 all_reduce dst=fp32 dram:G +0 [[64,128],[1,64]], src=fp32 sbuf[0:128] +0 [[1,64]], op=add, "
              "first_core=0, core_count=1\n");
    // inf2 runs collectives on any group (configs: no collective_rank_counts), so the engines see this
    // one; trn1's runtime refuses a 1-rank group at load.
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance inf2.xlarge run " + outside),
                          "core 1 queue dma0, instruction 0 (all_reduce): core 1 is not in the group of cores 0 to 0");
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + outside),
                          "all_reduce over 1 ranks from nc0: trn1.2xlarge runs collectives on 2 ranks");
    // Core 0 and core 1 each issue one collective of the group of both.
    auto both = [&](const std::string& name, const std::string& core0, const std::string& core1) {
        const std::string group = ", first_core=0, core_count=2\n";
        return write_program(name, two + ".core 0\ndma0 " + core0 + group + ".core 1\ndma0 " + core1 + group);
    };
    const std::string gather = "all_gather dst=fp32 dram:G +0 [[64,128],[1,64]], src=fp32 sbuf[0:128] +0 [[1,64]]";
    const std::string mismatched = both(
        "run_mismatched.bin", "all_reduce dst=fp32 dram:G +0 [[64,128],[1,64]], src=fp32 sbuf[0:128] +0 [[1,64]], op=add",
        "all_gather dst=fp32 dram:G +0 [[64,128],[1,64]], src=fp32 sbuf[0:128] +0 [[1,32]]");
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + mismatched),
                          "instruction 0 (all_gather): meets all_reduce of core 0");
    // The destination of an all_gather must hold every rank's source (functional runs only).
    const std::string small = both("run_gather_small.bin", gather, gather);
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + small + " --functional"),
                          "core 0 queue dma0, instruction 0 (all_gather): all_gather: dst holds 8192 elements, the "
                          "collective produces 16384");
}

TEST(RunCommand, PairsNeedABuiltModel) {
    const std::string prog = write_program("run_pairs_bare.bin", kProgram);
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --functional --pairs x.tsv"),
                          "neuron-sim: --pairs needs a BERT model built by neuron-build; " + prog + " is a bare program");
}

TEST(RunCommand, UsageErrorsAreOneLineWithExitCode2) {
    const std::string prog = write_program("run_usage.bin", kProgram);
    const auto zero = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --iterations 0");
    expect_one_line_error(zero, "--iterations");
    EXPECT_NE(zero.err.find("not in range"), std::string::npos) << zero.err;
    EXPECT_EQ(zero.exit_code, 2);
    const auto unknown = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --itterations 3");
    expect_one_line_error(unknown, "--itterations");
    EXPECT_EQ(unknown.exit_code, 2);
    // Text that is no number says so, not that it is out of range (every tool's range checks: number_options.h).
    const auto not_a_number = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --iterations abc");
    expect_one_line_error(not_a_number, "--iterations: abc is not a number");
    EXPECT_EQ(not_a_number.exit_code, 2);
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --iterations 2.5"),
                          "--iterations: 2.5 is not a whole number");
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --iterations 0"),
                          "--iterations: Value 0 not in range 1 to 1000000");
    const auto missing = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run");
    expect_one_line_error(missing, "program is required");
    EXPECT_EQ(missing.exit_code, 2);
    // --pairs reports its own figures: a profile of its executions is not what it makes.
    const auto profile = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog +
                                           " --functional --pairs p.tsv --profile p.json");
    expect_one_line_error(profile, "excludes");
    EXPECT_EQ(profile.exit_code, 2);
}

TEST(RunCommand, UnwritableTraceIsAnError) {
    const std::string prog = write_program("run_trace_err.bin", kProgram);
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --trace /nonexistent/t.json"),
                          "cannot write the trace file /nonexistent/t.json: No such file or directory");
    // A directory where the file should go says so, rather than only that it cannot be written.
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --trace /"),
                          "cannot write the trace file /: Is a directory");
}

// An unwritable --profile is said before the run, as --trace's is, not after minutes of executions: a
// program that would deadlock shows which came first. The check leaves no file behind.
TEST(RunCommand, UnwritableProfileIsAnErrorBeforeTheRun) {
    const std::string prog = write_program("run_profile_err.bin", ".target v2\n.cores 1\n.sem never 0\n.core 0\nact nop wait=never>=1\n");
    expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog +
                                            " --iterations 20 --profile /nonexistent/p.json"),
                          "cannot write the profile file /nonexistent/p.json: No such file or directory");
    const fs::path fresh = test::scratch_path("run_profile_probe.json");
    fs::remove(fresh);
    const auto r = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --profile " + fresh.string());
    EXPECT_NE(r.err.find("deadlock at"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(fresh));
}

TEST(RunCommand, DeadlockEndsWithAReportAndAFailure) {
    const std::string prog = write_program("run_deadlock.bin", ".target v2\n.cores 1\n.sem never 0\n.core 0\nact nop wait=never>=1\n");
    const auto r = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("deadlock at"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("waits for never >= 1 (it is 0)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nsim
