// Helpers for the engines' tests: assemble a text program, elaborate a machine, place and run it.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/engine_scheduler.h"
#include "core/run_report.h"
#include "isa/text_format.h"
#include "sim/test_host.h"

namespace nsim::test {

inline isa::Container assemble_program(const std::string& text) { return isa::assemble(text, "test.s").container; }

// One machine, one program: elaborated, placed, tensors loaded (functional runs), ready to run.
struct EngineRun {
    std::unique_ptr<sim::Platform> platform;
    isa::Container program;
    sim::core::ProgramPlacement placement;
    std::unique_ptr<sim::core::EngineScheduler> engines;

    EngineRun(const std::string& instance, isa::Container p, sim::core::ExecutionOptions options = {})
        : platform(elaborate(instance)), program(std::move(p)) {
        placement = sim::core::place_program(program, *platform);
        if (options.functional) sim::core::load_tensors(program, placement, *platform);
        engines = std::make_unique<sim::core::EngineScheduler>(*platform, program, placement, options);
    }

    sim::core::RunStatistics run() { return engines->run(); }

    const sim::core::QueueStatistics& queue(const sim::core::RunStatistics& stats, const std::string& name) const {
        for (const auto& q : stats.queues)
            if (q.name == name) return q;
        throw std::out_of_range("no queue " + name);
    }

    // The X (complete) events of the trace's instructions (not its waits), in recording order.
    std::vector<nlohmann::json> slices() const {
        std::vector<nlohmann::json> out;
        const nlohmann::json trace = engines->trace().to_json();
        for (const auto& e : trace["traceEvents"])
            if (e["ph"] == "X" && e["cat"] != "wait") out.push_back(e);
        return out;
    }

    sim::SparseMemory& device_memory() { return platform->devices()[0]->memory_channels()[0]->storage(); }
};

// The NeuronCore-v2 (Trainium) core of the shipped configs, the one most engine tests time against.
inline const config::NeuronCoreSpec& v2_core() { return shipped_configs().chip("trainium1").core; }

// Run options that record a trace (EngineRun::slices() reads it).
inline sim::core::ExecutionOptions traced_options() {
    sim::core::ExecutionOptions o;
    o.trace = true;
    return o;
}

// Picoseconds of `cycles` of a configured engine, rounded as the engines round.
inline double cycles_ps(const config::NeuronCoreSpec& core, const std::string& engine, double cycles) {
    for (const auto& e : core.engines)
        if (e.name == engine) return cycles * 1e12 / e.clock_hz;
    throw std::out_of_range("no engine " + engine);
}

}  // namespace nsim::test
