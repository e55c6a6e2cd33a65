#include "core/engine_scheduler.h"

#include "core/engine_run.h"

namespace nsim::sim::core {

EngineScheduler::EngineScheduler(Platform& platform, const isa::Container& program, const ProgramPlacement& placement,
                                 ExecutionOptions options)
    : run_(std::make_unique<EngineRun>(platform, program, placement, options)) {}

EngineScheduler::~EngineScheduler() = default;

RunStatistics EngineScheduler::run() { return run_->run(); }

const TraceRecorder& EngineScheduler::trace() const { return run_->trace; }

}  // namespace nsim::sim::core
