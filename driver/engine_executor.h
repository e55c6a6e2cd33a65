// The ModelExecutor backed by the NeuronCore engines (sim/core EngineScheduler): the runtime's
// loaded program becomes a ProgramPlacement, the engines run it, their statistics become the result.
#pragma once

#include "model_executor.h"

namespace nsim::runtime {

class EngineExecutor : public ModelExecutor {
public:
    ExecutionResult execute(sim::Platform& platform, const LoadedProgram& program, const ExecutionRequest& request) override;
};

}  // namespace nsim::runtime
