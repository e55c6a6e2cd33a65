// host-performance: how much host time and memory the simulator spends around the engines, for the
// README's performance section (issue 12). A benchmark, not a test: it asserts nothing, it prints.
//
// For each setup it builds the program with neuron-build and runs it with `neuron-sim run`, as child
// processes, and reports their whole-process CPU seconds and peak RSS (wait4's rusage), the file
// size and instructions per host second. Then it runs the same program once more in a child of its
// own, phase by phase through the same libraries `neuron-sim run` uses, and prints the host seconds
// of each phase:
//   read     read the file, check it, decode it (isa::read_container_file)
//   load     the runtime's load of what was read (validate, allocate, write code and weights through
//            the driver), as `neuron-sim run` hands it over
//   fetch    one instruction fetch of every stream from device memory (sim/core/instruction_fetch)
//   engines  one execution through the runtime minus one fetch: the engine simulation, plus the
//            runtime moving inputs and outputs over the simulated PCIe
// Phases are CPU seconds of the phase child; whole processes are CPU seconds (user + system).
//   report   the text report
//
//   host-performance [--build-dir build] [--only main|trn1-32|functional] [--no-phases]
// (--no-phases with another tree's --build-dir measures that tree's tools only: the phases run this
// program's own libraries.)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common/tool_main.h"
#include "config/config_set.h"
#include "core/instruction_fetch.h"
#include "core/run_report.h"
#include "engine_executor.h"
#include "isa/container_io.h"
#include "runtime.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// This process's CPU seconds: phases are timed in CPU time, so that other work on a shared machine
// does not count.
double cpu_now() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

struct Setup {
    std::string key, title, instance;
    std::vector<std::string> build_args;
    bool functional = false;
};

std::vector<Setup> setups() {
    const std::vector<std::string> large = {"bert", "--model", "bert-large", "--seq", "128"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = large;
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    };
    return {
        {"main", "main job: BERT-large seq 128, 4 cores x batch 4, inf1.2xlarge, timing", "inf1.2xlarge",
         with({"--batch", "4", "--cores", "4", "--parallel", "data", "--dtype", "mixed", "--embedding", "host",
               "--timing-only", "--instance", "inf1.2xlarge"})},
        {"trn1-32", "BERT-large seq 128, 32 cores x batch 4, trn1.32xlarge, timing", "trn1.32xlarge",
         with({"--batch", "4", "--cores", "32", "--parallel", "data", "--dtype", "mixed", "--embedding", "host",
               "--timing-only", "--instance", "trn1.32xlarge"})},
        {"functional", "BERT-large seq 128, batch 1, 1 core, trn1.2xlarge, functional (random weights)", "trn1.2xlarge",
         with({"--batch", "1", "--cores", "1", "--dtype", "bf16", "--embedding", "host", "--instance", "trn1.2xlarge"}),
         true},
    };
}

struct ChildCost {
    double cpu_s = 0, wall_s = 0;
    long peak_rss_kib = 0;
    std::string output;
};

// Runs argv with stdout to a file; its CPU seconds (user + system) and peak RSS from wait4.
ChildCost run_child(const std::vector<std::string>& argv, const fs::path& out_file) {
    const auto start = Clock::now();
    std::cout.flush();
    std::fflush(stdout);  // else the child's freopen writes our buffered output into the parent's file
    const pid_t pid = fork();
    if (pid < 0) throw nsim::tools::UserError("fork failed");
    if (pid == 0) {
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        if (!std::freopen(out_file.c_str(), "w", stdout)) _exit(127);
        execv(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    ChildCost cost;
    cost.wall_s = seconds_since(start);
    cost.cpu_s = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                 double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
    cost.peak_rss_kib = usage.ru_maxrss;
    std::ifstream in(out_file);
    std::stringstream text;
    text << in.rdbuf();
    cost.output = text.str();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw nsim::tools::UserError(fmt::format("{} failed (status {}): {}", argv[0], status, cost.output));
    return cost;
}

// The child that times the phases: prints "phases READ LOAD FETCH ENGINES REPORT INSTRUCTIONS".
int time_phases(const std::string& instance, const fs::path& program, bool functional) {
    using namespace nsim;
    const config::ConfigSet configs = config::ConfigSet::load(config::ConfigSet::default_dir());
    const config::HostSpec host = configs.host(instance);

    double start = cpu_now();
    isa::Container container = isa::read_container_file(program);
    const double read_s = (cpu_now() - start);

    start = cpu_now();
    runtime::Runtime rt(host);
    auto owned = std::make_unique<runtime::EngineExecutor>(functional);
    runtime::EngineExecutor* executor = owned.get();
    rt.set_executor(std::move(owned));
    runtime::Model* model = nullptr;
    if (rt.init() != runtime::NrtStatus::Success || rt.load(std::move(container), -1, &model) != runtime::NrtStatus::Success)
        throw tools::UserError(rt.last_error());
    const double load_s = (cpu_now() - start);

    runtime::TensorSet inputs, outputs;
    for (const isa::TensorInfo& t : model->program.tensors) {
        if (t.role != isa::TensorRole::Input && t.role != isa::TensorRole::Output) continue;
        runtime::Tensor* tensor = nullptr;
        if (rt.tensor_allocate(runtime::TensorPlacement::Host, int32_t(model->vnc), t.size_bytes(), t.name, &tensor) !=
            runtime::NrtStatus::Success)
            throw tools::UserError(rt.last_error());
        (t.role == isa::TensorRole::Input ? inputs : outputs).tensors[t.name] = tensor;
    }

    start = cpu_now();
    const auto fetched = sim::core::fetch_streams(model->program, model->loaded.placement, rt.platform());
    const double fetch_s = (cpu_now() - start);

    start = cpu_now();
    if (rt.execute(model, inputs, &outputs) != runtime::NrtStatus::Success) throw tools::UserError(rt.last_error());
    const double engines_s = cpu_now() - start - fetch_s;

    start = cpu_now();
    const std::string report = sim::core::report_text(executor->last_statistics());
    const double report_s = (cpu_now() - start);
    std::cout << fmt::format("phases {:.4f} {:.4f} {:.4f} {:.4f} {:.4f} {}\n", read_s, load_s, fetch_s, engines_s,
                             report_s, executor->last_statistics().instructions);
    return report.empty() ? 1 : 0;
}

}  // namespace

int sc_main(int argc, char** argv) {
    CLI::App app{"Host time and memory of neuron-build and neuron-sim run, by phase", "host-performance"};
    std::string build_dir = "build", only, phases_instance, phases_program;
    bool phases_functional = false, no_phases = false;
    app.add_option("--build-dir", build_dir, "where neuron-build and neuron-sim are (build/tools)");
    app.add_option("--only", only, "one setup: main, trn1-32 or functional");
    app.add_flag("--no-phases", no_phases, "whole processes only (for another tree's tools)");
    // Internal: the phase-timing child.
    app.add_option("--phases-instance", phases_instance)->group("");
    app.add_option("--phases-program", phases_program)->group("");
    app.add_flag("--phases-functional", phases_functional)->group("");
    return nsim::tools::run_tool(app, argc, argv, [&] {
        if (!phases_program.empty()) return time_phases(phases_instance, phases_program, phases_functional);
        const fs::path tools = fs::absolute(fs::path(build_dir) / "tools");
        const fs::path work = fs::temp_directory_path() / fmt::format("host-performance-{}", getpid());
        fs::create_directories(work / "home");
        setenv("NEURON_SIM_HOME", (work / "home").c_str(), 1);
        setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
        const fs::path self = fs::canonical("/proc/self/exe");
        for (const Setup& s : setups()) {
            if (!only.empty() && only != s.key) continue;
            const fs::path program = work / (s.key + ".bin");
            std::vector<std::string> build = {(tools / "neuron-build").string()};
            build.insert(build.end(), s.build_args.begin(), s.build_args.end());
            build.insert(build.end(), {"-o", program.string()});
            const ChildCost built = run_child(build, work / "out.txt");
            std::vector<std::string> run = {(tools / "neuron-sim").string(), "--instance", s.instance, "run", program.string()};
            if (s.functional) run.push_back("--functional");
            const ChildCost ran = run_child(run, work / "out.txt");
            std::vector<std::string> phase_args = {self.string(), "--phases-instance", s.instance, "--phases-program",
                                                   program.string()};
            if (s.functional) phase_args.push_back("--phases-functional");
            double read_s = 0, load_s = 0, fetch_s = 0, engines_s = 0, report_s = 0;
            uint64_t instructions = 0;
            if (no_phases) {
                const size_t at = ran.output.find("instructions:");
                if (at != std::string::npos) instructions = std::stoull(ran.output.substr(at + 13));
            } else {
                const ChildCost phased = run_child(phase_args, work / "out.txt");
                std::istringstream line(phased.output.substr(phased.output.find("phases ") + 7));
                line >> read_s >> load_s >> fetch_s >> engines_s >> report_s >> instructions;
            }

            const double file_mib = double(fs::file_size(program)) / (1 << 20);
            fs::remove(program);
            std::cout << s.title << "\n";
            std::cout << fmt::format("  neuron-build     {:7.2f} s CPU, peak RSS {:7.1f} MiB, file {:.1f} MiB\n", built.cpu_s,
                                     built.peak_rss_kib / 1024.0, file_mib);
            std::cout << fmt::format("  neuron-sim run   {:7.2f} s CPU ({:.2f} s wall), peak RSS {:7.1f} MiB = 13 MiB + {:.0f} B "
                                     "per instruction\n",
                                     ran.cpu_s, ran.wall_s, ran.peak_rss_kib / 1024.0,
                                     instructions ? (ran.peak_rss_kib * 1024.0 - 13.0 * (1 << 20)) / double(instructions) : 0.0);
            std::cout << fmt::format("  instructions     {}, {:.2f} M per host second (whole process), {:.2f} M per engine second\n",
                                     instructions, instructions / ran.cpu_s * 1e-6,
                                     engines_s > 0 ? instructions / engines_s * 1e-6 : 0.0);
            if (no_phases) continue;
            std::cout << fmt::format("  phases (CPU s)   read {:.3f}, load {:.3f}, fetch {:.3f}, engines {:.3f}, report {:.4f}\n",
                                     read_s, load_s, fetch_s, engines_s, report_s);
            std::cout << fmt::format("  whole process / engines = {:.2f}\n", engines_s > 0 ? ran.cpu_s / engines_s : 0.0);
        }
        fs::remove_all(work);
        return 0;
    });
}
