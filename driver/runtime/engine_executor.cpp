#include "engine_executor.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/engine_scheduler.h"
#include "replicated_devices.h"

namespace nsim::runtime {

ExecutionResult EngineExecutor::execute(sim::Platform& platform, const LoadedProgram& program, const ExecutionRequest& request) {
    sim::core::ExecutionOptions options;
    options.functional = functional_ && request.functional;
    options.iterations = request.iterations;
    options.graph = request.graph;
    const uint32_t all = uint32_t(program.placement.cores.size());
    const uint32_t timing_cores = request.graph < program.timing_cores.size() ? program.timing_cores[request.graph] : all;
    if (!options.functional && timing_cores < all) options.simulated_cores = timing_cores;
    options.trace = request.trace != nullptr;
    options.progress = progress_;
    ExecutionResult result;
    try {
        sim::core::EngineScheduler scheduler(platform, *program.program, program.placement, options);
        last_ = scheduler.run();
        if (request.trace) scheduler.trace().write_to(*request.trace);
    } catch (const sim::core::RunError& e) {
        const std::string text = e.what();
        const size_t end = text.find('\n');
        result.message = text.substr(0, end);  // one line; the deadlock report follows it
        if (end != std::string::npos) result.report = text.substr(end + 1);
        return result;
    }
    result.device_seconds = last_.time_s;
    result.cycles = last_.cycles;
    result.simulated_cores = options.simulated_cores ? options.simulated_cores : all;
    std::vector<double> busy(result.simulated_cores, 0.0);
    for (const auto& queue : last_.queues)
        if (queue.core < busy.size() && queue.instructions > 0) busy[queue.core] = last_.time_s;
    result.core_busy_s = busy_of_every_core(busy, result.simulated_cores, all);
    if (request.timeout_s > 0 && last_.time_s > request.timeout_s) {
        result.timed_out = true;
        result.message = fmt::format("execution took {:g} s of simulated time, over the {:g} s timeout (NEURON_RT_EXEC_TIMEOUT)",
                                     last_.time_s, request.timeout_s);
        return result;
    }
    result.ok = true;
    return result;
}

}  // namespace nsim::runtime
