// The progress bar of a session's executions (run, run --pairs): it moves after each
// execution and, through the engines' progress reports, during one, so a run of a single long
// execution shows it too.
#pragma once

#include <cstdint>
#include <string>

#include "library/program_session.h"
#include "neuron-sim/progress_bar.h"

namespace nsim::tools {

class ExecutionProgress {
public:
    ExecutionProgress(library::Session& session, std::string label, uint64_t executions);
    ~ExecutionProgress();  // the session stops reporting to it

    ExecutionProgress(const ExecutionProgress&) = delete;
    ExecutionProgress& operator=(const ExecutionProgress&) = delete;

    void execution_finished();

private:
    library::Session& session_;
    ProgressBar bar_;
    uint64_t finished_ = 0;
};

}  // namespace nsim::tools
