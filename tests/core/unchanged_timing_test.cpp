// Decoding once, sharing identical streams and fetching without decoding again (issue 12) must not
// change what the engines do. The same data-parallel BERT program is simulated two independent ways:
// here, in this process, straight from the builder's in-memory program (no file, no stream cache,
// no runtime, no code in device memory, each stream its own), and by `neuron-sim run` on the file
// (format version 2 with the cores' identical streams stored once, read through the stream cache,
// loaded by the runtime, fetched back from device memory). Cycle counts and every trace slice agree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "bert/bert_config.h"
#include "common/command_runner.h"
#include "config/config_set.h"
#include "core/engine_scheduler.h"
#include "device/bert_program.h"
#include "isa/container_io.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

// (track name, opcode, start, duration) of every slice, sorted: the order tracks are declared in is
// not the engines' behaviour.
std::vector<std::string> slices(const nlohmann::json& trace) {
    std::map<std::pair<int, int>, std::string> names;  // (pid, tid) -> "core label/queue"
    std::map<int, std::string> processes;
    for (const auto& e : trace["traceEvents"])
        if (e.value("ph", "") == "M" && e.value("name", "") == "process_name") processes[e["pid"]] = e["args"]["name"];
    for (const auto& e : trace["traceEvents"])
        if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name")
            names[{e["pid"], e["tid"]}] = processes[e["pid"]] + "/" + e["args"]["name"].get<std::string>();
    std::vector<std::string> out;
    for (const auto& e : trace["traceEvents"])
        if (e.value("ph", "") == "X")
            out.push_back(names[{e["pid"], e["tid"]}] + " " + e["name"].get<std::string>() + " #" + e["args"]["instruction"].dump() + " " +
                          e["ts"].dump() + " " + e["dur"].dump());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(UnchangedTiming, TheRuntimePathOnASharedStreamFileMatchesTheBuildersProgram) {
    const config::ConfigSet configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    const config::HostSpec host = configs.host("inf1.2xlarge");
    kernels::device::BertProgramOptions o;
    o.config = *kernels::bert_preset_config("bert-base");
    o.config.num_hidden_layers = 2;
    o.model_name = "bert-base-2-layers";
    o.seq = 128, o.batch = 2, o.cores = 4;
    o.precision = *kernels::device::precision_from_name("mixed");
    o.parallel = kernels::device::Parallelism::Data;
    o.embedding = kernels::device::EmbeddingPlacement::Host;
    const isa::Container program = kernels::device::build_bert_program(host.chip.core, o, nullptr, nullptr);

    const fs::path file = fs::path(testing::TempDir()) / "unchanged_timing.bin";
    const fs::path trace_file = fs::path(testing::TempDir()) / "unchanged_timing_trace.json";
    const std::vector<uint8_t> bytes = isa::write_container(program);
    isa::write_file(file, bytes);
    // The file stores the four cores' identical compute streams once.
    const isa::ContainerLayout layout = isa::read_layout(bytes.data(), bytes.size());
    std::set<uint64_t> distinct;
    size_t streams = 0;
    for (const auto& s : layout.sections)
        if (s.kind == isa::SectionKind::InstructionStream) ++streams, distinct.insert(s.offset);
    EXPECT_LT(distinct.size(), streams);

    const auto r = test::run_command(test::tool_path("neuron-sim") + " --instance inf1.2xlarge run " + file.string() +
                                     " --json --trace " + trace_file.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    std::ifstream in(trace_file);
    const nlohmann::json cli_trace = nlohmann::json::parse(in);

    sim::Platform platform("machine", host);
    sim::Platform::finish_elaboration();
    const sim::core::ProgramPlacement placement = sim::core::place_program(program, platform);
    sim::core::ExecutionOptions traced;
    traced.trace = true;
    sim::core::EngineScheduler engines(platform, program, placement, traced);
    const sim::core::RunStatistics direct = engines.run();

    ASSERT_TRUE(report.contains("cycles")) << r.out;
    EXPECT_EQ(report["cycles"].get<uint64_t>(), direct.cycles);
    EXPECT_EQ(report["instructions"].get<uint64_t>(), direct.instructions);
    const auto expected = slices(engines.trace().to_json()), actual = slices(cli_trace);
    EXPECT_EQ(actual.size(), direct.instructions);
    EXPECT_TRUE(actual == expected) << "the traces differ";
}

}  // namespace
}  // namespace nsim
