// Decoding once, sharing identical streams and fetching without decoding again (issue 12) must not
// change what the engines do. The same data-parallel BERT program is simulated two independent ways:
// straight from the builder's in-memory program (no file, no stream cache, no code in device memory,
// each stream its own), and from the file (format version 2 with the cores' identical streams
// stored once, read through the stream cache, its code written to device memory and fetched back
// from there). Cycle counts and every trace slice agree; `neuron-sim run` (runtime and driver)
// counts the same cycles. (Its trace is not compared with the direct one slice by slice: through the
// runtime one DMA issues about a microsecond later and ends at the same time. By hand, on BERT-base
// over 4 cores: the runtime path's trace of main at 46c3001 on a version 1 file and of this change on
// the version 2 file agree slice for slice, from the first slice on.)
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "common/temp_directory.h"
#include "bert/bert_config.h"
#include "common/command_runner.h"
#include "config/config_set.h"
#include "core/engine_scheduler.h"
#include "device/bert_program.h"
#include "isa/container_io.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

// (track name, opcode, instruction, start, duration) of every slice, sorted: the order tracks are
// declared in is not the engines' behaviour.
std::vector<std::string> slices(const nlohmann::json& trace) {
    std::map<std::pair<int, int>, std::string> names;  // (pid, tid) -> "core label/queue"
    std::map<int, std::string> processes;
    for (const auto& e : trace["traceEvents"])
        if (e.value("ph", "") == "M" && e.value("name", "") == "process_name") processes[e["pid"]] = e["args"]["name"];
    for (const auto& e : trace["traceEvents"])
        if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name")
            names[{e["pid"], e["tid"]}] = processes[e["pid"]] + "/" + e["args"]["name"].get<std::string>();
    // Times in picoseconds from the execution's first slice: through the runtime, the execution
    // starts after the load and the input copies.
    const auto ps = [](const nlohmann::json& us) { return std::llround(us.get<double>() * 1e6); };
    long long first = LLONG_MAX;
    // Instruction slices only: waits are the gaps between them.
    const auto instruction = [](const nlohmann::json& e) { return e.value("ph", "") == "X" && e.value("cat", "") != "wait"; };
    for (const auto& e : trace["traceEvents"])
        if (instruction(e)) first = std::min(first, ps(e["ts"]));
    std::vector<std::string> out;
    for (const auto& e : trace["traceEvents"])
        if (instruction(e))
            out.push_back(names[{e["pid"], e["tid"]}] + " " + e["name"].get<std::string>() + " #" +
                          e["args"]["instruction"].dump() + " " + std::to_string(ps(e["ts"]) - first) + " " +
                          std::to_string(ps(e["dur"])));
    std::sort(out.begin(), out.end());
    return out;
}

TEST(UnchangedTiming, AFilesSharedStreamsFetchedFromDeviceMemoryRunAsTheBuildersProgram) {
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

    const fs::path file = test::scratch_path("unchanged_timing.bin");
    const std::vector<uint8_t> bytes = isa::write_container(program);
    isa::write_file(file, bytes);
    // The file stores the four cores' identical compute streams once.
    const isa::ContainerLayout layout = isa::read_layout(bytes.data(), bytes.size());
    std::set<uint64_t> distinct;
    size_t streams = 0;
    for (const auto& s : layout.sections)
        if (s.kind == isa::SectionKind::InstructionStream) ++streams, distinct.insert(s.offset);
    EXPECT_LT(distinct.size(), streams);

    // The independent path, in a child with its own simulated machine: the builder's program as it
    // is (each core's streams its own), no file, no runtime, no code in device memory.
    const fs::path direct_file = test::scratch_path("unchanged_timing_direct.txt");
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        sim::Platform platform("machine", host);
        sim::Platform::finish_elaboration();
        const sim::core::ProgramPlacement placement = sim::core::place_program(program, platform);
        sim::core::ExecutionOptions traced;
        traced.trace = true;
        sim::core::EngineScheduler engines(platform, program, placement, traced);
        const sim::core::RunStatistics stats = engines.run();
        std::ofstream out(direct_file);
        out << stats.cycles << "\n" << stats.instructions << "\n";
        for (const std::string& slice : slices(engines.trace().to_json())) out << slice << "\n";
        out.close();
        _exit(out ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    std::ifstream in(direct_file);
    uint64_t direct_cycles = 0, direct_instructions = 0;
    in >> direct_cycles >> direct_instructions;
    std::vector<std::string> expected;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) expected.push_back(line);
    ASSERT_EQ(expected.size(), direct_instructions);

    // The path under test: the file read back (shared streams, through the stream cache), its code
    // written into device memory next to each core as the runtime's load writes it, and fetched
    // from there by the engines.
    const isa::Container loaded = isa::read_container(isa::read_file(file));
    sim::Platform platform("machine", host);
    sim::Platform::finish_elaboration();
    sim::core::ProgramPlacement placement = sim::core::place_program(loaded, platform);
    uint64_t code_at = (placement.device_region_bytes + 4095) / 4096 * 4096;
    for (uint32_t i = 0; i < loaded.streams.size(); ++i) {
        const std::vector<uint8_t>& code = loaded.streams[i].instructions.code();
        const sim::core::PhysicalCore& core = placement.cores.at(loaded.streams[i].core);
        sim::core::channel_storage(platform, core.device, core.memory_channel).write(code_at, code.data(), code.size());
        placement.code.push_back({i, core.device, core.memory_channel, code_at, code.size()});
        code_at += (code.size() + 4095) / 4096 * 4096;
    }
    sim::core::ExecutionOptions traced;
    traced.trace = true;
    sim::core::EngineScheduler engines(platform, loaded, placement, traced);
    const sim::core::RunStatistics fetched = engines.run();
    EXPECT_EQ(fetched.cycles, direct_cycles);
    EXPECT_EQ(fetched.instructions, direct_instructions);
    const std::vector<std::string> actual = slices(engines.trace().to_json());
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) ASSERT_EQ(actual[i], expected[i]) << "slice " << i;

    // And `neuron-sim run`, through the runtime and the driver, counts the same cycles.
    const auto r = test::run_command(test::tool_path("neuron-sim") + " --instance inf1.2xlarge run " + file.string() +
                                     " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    EXPECT_EQ(report["cycles"].get<uint64_t>(), direct_cycles);
    EXPECT_EQ(report["instructions"].get<uint64_t>(), direct_instructions);
}

}  // namespace
}  // namespace nsim
