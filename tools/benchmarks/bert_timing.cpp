// bert-timing: the hand-scheduled BERT program, built in-process without weights and run timing-only
// on a simulated instance. Prints the host time of building and of simulating it, the simulated
// latency, every compute engine's busy %, and the tensor engine's busy % over the matmul phases
// (the fully-connected layers: from a phase's first tensor-engine instruction starting to its last
// one ending, as the trace records them). A benchmark, not a test: it asserts nothing.
//
//   bert-timing [--instance inf1.2xlarge] [--model bert-large] [--seq 128] [--batch 1] [--dtype mixed]
//               [--cores 1] [--parallel data] [--embedding host]
#include <chrono>
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <systemc>

#include "common/tool_main.h"
#include "config/config_set.h"
#include "core/engine_scheduler.h"
#include "core/program_placement.h"
#include "core/run_report.h"
#include "device/bert_program.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct PhaseBusy {
    double busy_us = 0, window_us = 0;
};

// Per kernel name: tensor-engine busy time and window over that kernel's phases.
std::map<std::string, PhaseBusy> tensor_engine_phases(const nlohmann::json& trace,
                                                      const std::vector<nsim::kernels::device::KernelPhase>& phases) {
    // PE slices per core by instruction index.
    std::map<uint32_t, std::map<size_t, std::pair<double, double>>> pe;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X" && e["cat"] == "pe" && e["args"]["iteration"] == 0)
            pe[e["pid"].get<uint32_t>()][e["args"]["instruction"].get<size_t>()] = {e["ts"].get<double>(),
                                                                                   e["dur"].get<double>()};
    std::map<std::string, PhaseBusy> out;
    for (const auto& p : phases) {
        const auto& slices = pe[p.core];
        auto first = slices.lower_bound(p.first), last = slices.lower_bound(p.end);
        if (first == last) continue;
        double busy = 0, end = 0;
        for (auto it = first; it != last; ++it) busy += it->second.second, end = it->second.first + it->second.second;
        PhaseBusy& b = out[p.dense ? "matmul phases (dense layers)" : p.kernel];
        b.busy_us += busy;
        b.window_us += end - first->second.first;
    }
    return out;
}

}  // namespace

int sc_main(int argc, char** argv) {
    CLI::App app{"Host time and tensor-engine use of the BERT program, timing only", "bert-timing"};
    std::string instance = "inf1.2xlarge", model = "bert-large", dtype = "mixed", parallel = "data", embedding = "host";
    uint32_t seq = 128, batch = 1, cores = 1;
    app.add_option("--instance", instance);
    app.add_option("--model", model, "bert-base or bert-large");
    app.add_option("--seq", seq);
    app.add_option("--batch", batch);
    app.add_option("--dtype", dtype);
    app.add_option("--cores", cores);
    app.add_option("--parallel", parallel);
    app.add_option("--embedding", embedding);
    return nsim::tools::run_tool(app, argc, argv, [&] {
        using namespace nsim;
        const config::ConfigSet configs = config::ConfigSet::load(config::ConfigSet::default_dir());
        const config::HostSpec host = configs.host(instance);
        kernels::device::BertProgramOptions o;
        const auto preset = kernels::bert_preset_config(model);
        if (!preset) throw tools::UserError("--model must be bert-base or bert-large");
        o.config = *preset;
        o.model_name = model;
        o.seq = seq, o.batch = batch, o.cores = cores;
        o.precision = *kernels::device::precision_from_name(dtype);
        o.parallel = parallel == "pipeline" ? kernels::device::Parallelism::Pipeline : kernels::device::Parallelism::Data;
        o.embedding = embedding == "device" ? kernels::device::EmbeddingPlacement::Device
                                            : kernels::device::EmbeddingPlacement::Host;
        std::vector<kernels::device::KernelPhase> phases;
        const auto build_start = Clock::now();
        const isa::Container program = kernels::device::build_bert_program(host.chip.core, o, nullptr, &phases);
        const double build_s = seconds_since(build_start);

        const auto sim_start = Clock::now();
        sim::Platform platform("machine", host);
        sim::Platform::finish_elaboration();
        const sim::core::ProgramPlacement placement = sim::core::place_program(program, platform);
        sim::core::ExecutionOptions execution;
        sim::core::EngineScheduler engines(platform, program, placement, execution);
        const sim::core::RunStatistics stats = engines.run();
        const double simulate_s = seconds_since(sim_start);

        std::cout << fmt::format("{} seq {} batch {} {} on {} ({}, {} core(s), {} parallel), timing only\n", model, seq,
                                 batch, dtype, instance, host.chip.core.name, cores, parallel);
        std::cout << fmt::format("host time: build {:.3f} s, elaborate + simulate {:.3f} s (engines {:.3f} s)\n", build_s,
                                 simulate_s, stats.host_seconds);
        std::cout << fmt::format("simulated latency: {:.1f} us, {} instructions\n", stats.time_s * 1e6, stats.instructions);
        for (const auto& q : stats.queues)
            if (q.engine != isa::Engine::Dma)
                std::cout << fmt::format("  {:<10} busy {:5.1f} %\n", q.name, sim::core::busy_percent(q, stats));

        // A second, traced run for the phase windows (tracing costs host time, so it is not timed).
        sim::core::ExecutionOptions traced;
        traced.trace = true;
        sim::core::EngineScheduler tracer(platform, program, placement, traced);
        tracer.run();
        for (const auto& [name, b] : tensor_engine_phases(tracer.trace().to_json(), phases))
            std::cout << fmt::format("tensor engine busy over {}: {:.1f} % ({:.1f} of {:.1f} us)\n", name,
                                     100.0 * b.busy_us / b.window_us, b.busy_us, b.window_us);
        return 0;
    });
}
