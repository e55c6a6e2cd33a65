#include "neuron-sim/sliced_run.h"

#include <algorithm>
#include <cmath>

namespace nsim::tools {

void append_statistics(sim::core::RunStatistics& total, const sim::core::RunStatistics& slice) {
    if (total.iteration_s.empty()) {
        total = slice;
        return;
    }
    total.time_s += slice.time_s;
    total.cycles = uint64_t(std::llround(total.time_s * total.cycle_clock_hz));
    total.iteration_s.insert(total.iteration_s.end(), slice.iteration_s.begin(), slice.iteration_s.end());
    for (size_t q = 0; q < total.queues.size() && q < slice.queues.size(); ++q) {
        total.queues[q].instructions += slice.queues[q].instructions;
        total.queues[q].busy_s += slice.queues[q].busy_s;
        total.queues[q].semaphore_wait_s += slice.queues[q].semaphore_wait_s;
        total.queues[q].bytes += slice.queues[q].bytes;
    }
    total.instructions += slice.instructions;
    total.dma_bytes += slice.dma_bytes;
    total.device_memory_bytes += slice.device_memory_bytes;
    total.pcie_bytes += slice.pcie_bytes;
    total.link_bytes += slice.link_bytes;
    total.host_seconds += slice.host_seconds;
}

sim::core::RunStatistics run_in_slices(sim::Platform& platform, const isa::Container& program,
                                       const sim::core::ProgramPlacement& placement, const sim::core::ExecutionOptions& options,
                                       double slice_host_s,
                                       const std::function<void(const sim::core::RunStatistics&)>& after_slice) {
    sim::core::RunStatistics total;
    const uint32_t iterations = std::max<uint32_t>(1, options.iterations);
    uint32_t done = 0;
    uint32_t next = 1;
    while (done < iterations) {
        sim::core::ExecutionOptions slice_options = options;
        slice_options.iterations = std::min(next, iterations - done);
        sim::core::EngineScheduler engines(platform, program, placement, slice_options);
        const sim::core::RunStatistics slice = engines.run();
        after_slice(slice);
        append_statistics(total, slice);
        done += slice_options.iterations;
        const double per_iteration_s = slice.host_seconds / double(slice_options.iterations);
        next = per_iteration_s > 0 ? uint32_t(std::clamp(slice_host_s / per_iteration_s, 1.0, double(iterations))) : iterations;
    }
    return total;
}

}  // namespace nsim::tools
