// The ModelExecutor backed by the NeuronCore engines (sim/core EngineScheduler): the runtime's
// loaded program becomes a ProgramPlacement, the engines run it, their statistics become the result.
// It keeps the engines' whole report of the last execution (per-queue busy time, instruction counts,
// bytes) that ExecutionResult summarises, for tools that print it, and traces the executions whose
// request carries a trace writer.
#pragma once

#include <functional>

#include "core/run_statistics.h"
#include "model_executor.h"

namespace nsim::runtime {

class EngineExecutor : public ModelExecutor {
public:
    // `functional` false: timing-only executions (no data is read or computed), whatever the request says.
    explicit EngineExecutor(bool functional = true) : functional_(functional) {}

    ExecutionResult execute(sim::Platform& platform, const LoadedProgram& program, const ExecutionRequest& request) override;

    // Whether executions from now on compute values (one runtime runs timing and functional programs).
    void set_functional(bool functional) { functional_ = functional; }

    const sim::core::RunStatistics& last_statistics() const { return last_; }
    // Every execution from now on reports its progress here (sim::core::ExecutionOptions::progress).
    void report_progress_to(std::function<void(uint64_t issued, uint64_t total)> progress) { progress_ = std::move(progress); }

private:
    bool functional_;
    sim::core::RunStatistics last_;
    std::function<void(uint64_t, uint64_t)> progress_;
};

}  // namespace nsim::runtime
