// Running many iterations of a program in slices, so that something can be done between them while
// the run goes on (publishing activity for neuron-top), with the same statistics as one run: each
// slice is an EngineScheduler run that starts where the previous one ended in simulated time.
#pragma once

#include <functional>

#include "core/engine_scheduler.h"

namespace nsim::tools {

// Slices last about `slice_host_s` of host time each (the first is one iteration, which measures how
// long one takes). `after_slice` gets each slice's own statistics. Returns the merged statistics.
sim::core::RunStatistics run_in_slices(sim::Platform& platform, const isa::Container& program,
                                       const sim::core::ProgramPlacement& placement, const sim::core::ExecutionOptions& options,
                                       double slice_host_s,
                                       const std::function<void(const sim::core::RunStatistics&)>& after_slice);

// `total` followed by `slice`, as if one run had done both.
void append_statistics(sim::core::RunStatistics& total, const sim::core::RunStatistics& slice);

}  // namespace nsim::tools
