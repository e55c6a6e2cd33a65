// bert-timing: the hand-scheduled BERT program, built in-process without weights and run timing-only
// on a simulated instance. Prints the host time of building and of simulating it, the simulated
// latency, every compute engine's busy %, and the tensor engine's busy % over windows of the
// program, from a traced second run: a kernel phase's window runs from its first tensor-engine
// instruction starting to its last one ending, so time between phases is outside every phase.
//   - "dense layers": the six fully-connected kernels of each layer (query, key, value, attention
//     output, intermediate, output) - the "matmul phases" of the target;
//   - "attention": scores, scale, mask, softmax, context of each layer (matmuls waiting on the
//     softmax of ACT/DVE/POOL);
//   - "dense layers + attention": every matmul phase of the encoder;
//   - "encoder, first to last matmul": one window per core from the first layer's first matmul to
//     the last layer's last one: the gaps between phases (layer norms, waits) count as idle.
// For each window, where the tensor engine's idle time inside it went: the semaphore its next
// instruction waited on and the engine queues that signal it. A benchmark, not a test: it asserts
// nothing.
//
//   bert-timing [--instance inf1.2xlarge] [--model bert-large] [--seq 128] [--batch 1] [--dtype mixed]
//               [--cores 1] [--parallel data] [--embedding host]
#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <set>

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
using nsim::kernels::device::KernelPhase;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Slice {
    double start_us = 0, duration_us = 0;
    double end_us() const { return start_us + duration_us; }
};

// The first iteration's tensor-engine slices of each core, by instruction index.
std::map<uint32_t, std::map<size_t, Slice>> tensor_engine_slices(const nlohmann::json& trace) {
    std::map<uint32_t, std::map<size_t, Slice>> pe;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X" && e["cat"] == "pe" && e["args"]["iteration"] == 0)
            pe[e["pid"].get<uint32_t>()][e["args"]["instruction"].get<size_t>()] = {e["ts"].get<double>(), e["dur"].get<double>()};
    return pe;
}

// Why the tensor engine stood still before an instruction: the semaphore that instruction waited on.
class WaitCauses {
public:
    explicit WaitCauses(const nsim::isa::Container& program) : program_(program) {
        for (const auto& s : program.streams) {
            if (s.engine == nsim::isa::Engine::Pe) pe_[s.core] = &s;
            for (const auto& inst : s.instructions)
                if (inst.sync.signal_semaphore != nsim::isa::kNoSemaphore)
                    signallers_[{s.core, inst.sync.signal_semaphore}].insert(nsim::isa::queue_name(s.engine, s.queue));
        }
    }

    // "weights* (signalled by 16 dma queues)": numbered families of semaphores (the weight buffers
    // of the double buffering) are one cause, and the signalling queues are counted by engine.
    std::string of(uint32_t core, size_t instruction) const {
        const uint16_t sem = pe_.at(core)->instructions.at(instruction).sync.wait_semaphore;
        if (sem == nsim::isa::kNoSemaphore) return "no semaphore (back-to-back issue)";
        std::string name = "semaphore " + std::to_string(sem);
        for (const auto& n : program_.semaphore_names)
            if (n.index == sem) name = n.name;
        if (const size_t digits = name.find_last_not_of("0123456789") + 1; digits > 0 && digits < name.size())
            name = name.substr(0, digits) + "*";
        std::map<std::string, int> engines;
        if (auto it = signallers_.find({core, sem}); it != signallers_.end())
            for (const std::string& q : it->second) ++engines[q.substr(0, q.find_first_of("0123456789"))];
        std::string by;
        for (const auto& [engine, queues] : engines)
            by += (by.empty() ? "" : ", ") + (queues == 1 ? engine : fmt::format("{} {} queues", queues, engine));
        return fmt::format("{} (signalled by {})", name, by.empty() ? "nobody" : by);
    }

private:
    const nsim::isa::Container& program_;
    std::map<uint32_t, const nsim::isa::InstructionStream*> pe_;
    std::map<std::pair<uint32_t, uint16_t>, std::set<std::string>> signallers_;
};

struct WindowBusy {
    double busy_us = 0, window_us = 0;
    std::map<std::string, double> idle_us_by_cause;

    // The tensor engine over instructions [first, end) of one core, as one window.
    void add(const std::map<size_t, Slice>& slices, size_t first, size_t end, uint32_t core, const WaitCauses& causes) {
        auto begin = slices.lower_bound(first), stop = slices.lower_bound(end);
        if (begin == stop) return;
        const Slice* previous = nullptr;
        for (auto it = begin; it != stop; ++it) {
            busy_us += it->second.duration_us;
            if (previous && it->second.start_us > previous->end_us())
                idle_us_by_cause[causes.of(core, it->first)] += it->second.start_us - previous->end_us();
            previous = &it->second;
        }
        window_us += previous->end_us() - begin->second.start_us;
    }

    void print(const std::string& name) const {
        std::cout << fmt::format("tensor engine busy over {}: {:.1f} % ({:.1f} of {:.1f} us)\n", name,
                                 window_us > 0 ? 100.0 * busy_us / window_us : 0.0, busy_us, window_us);
        std::vector<std::pair<double, std::string>> idle;
        for (const auto& [cause, us] : idle_us_by_cause)
            if (us >= 0.05) idle.push_back({us, cause});
        std::sort(idle.rbegin(), idle.rend());
        for (size_t i = 0; i < idle.size() && i < 4; ++i)
            std::cout << fmt::format("    idle {:8.1f} us ({:4.1f} % of the window) waiting on {}\n", idle[i].first,
                                     100.0 * idle[i].first / window_us, idle[i].second);
    }
};

// Busy % of the tensor engine over the phases `in_window` accepts, each phase its own window.
WindowBusy over_phases(const std::map<uint32_t, std::map<size_t, Slice>>& pe, const std::vector<KernelPhase>& phases,
                       const WaitCauses& causes, const std::function<bool(const KernelPhase&)>& in_window) {
    WindowBusy b;
    for (const KernelPhase& p : phases)
        if (in_window(p) && pe.count(p.core)) b.add(pe.at(p.core), p.first, p.end, p.core, causes);
    return b;
}

// One window per core from the first phase's first tensor-engine instruction to the last phase's end.
WindowBusy over_encoder(const std::map<uint32_t, std::map<size_t, Slice>>& pe, const std::vector<KernelPhase>& phases,
                        const WaitCauses& causes) {
    std::map<uint32_t, std::pair<size_t, size_t>> span;
    for (const KernelPhase& p : phases) {
        auto [it, fresh] = span.try_emplace(p.core, p.first, p.end);
        if (!fresh) it->second = {std::min(it->second.first, p.first), std::max(it->second.second, p.end)};
    }
    WindowBusy b;
    for (const auto& [core, range] : span)
        if (pe.count(core)) b.add(pe.at(core), range.first, range.second, core, causes);
    return b;
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
        const auto pe = tensor_engine_slices(tracer.trace().to_json());
        const WaitCauses causes(program);
        const auto is_attention = [](const KernelPhase& p) { return p.kernel == "attention"; };
        over_phases(pe, phases, causes, [](const KernelPhase& p) { return p.dense; })
            .print("dense layers (query, key, value, attention output, intermediate, output; each phase its own window)");
        over_phases(pe, phases, causes, is_attention).print("attention (scores, softmax, context; each layer its own window)");
        over_phases(pe, phases, causes, [&](const KernelPhase& p) { return p.dense || is_attention(p); })
            .print("dense layers + attention (every matmul phase, each its own window)");
        over_encoder(pe, phases, causes).print("encoder, first to last matmul (gaps between phases count as idle)");
        return 0;
    });
}
