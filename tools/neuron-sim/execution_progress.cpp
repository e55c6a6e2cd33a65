#include "neuron-sim/execution_progress.h"

namespace nsim::tools {

ExecutionProgress::ExecutionProgress(library::Session& session, std::string label, uint64_t executions)
    : session_(session), bar_(std::move(label), executions) {
    // Off a terminal nothing is drawn, so the engines need not report.
    if (bar_.on_terminal())
        session_.report_progress_to([this](uint64_t issued, uint64_t total) {
            if (total > 0) bar_.update(double(finished_) + double(issued) / double(total));
        });
}

ExecutionProgress::~ExecutionProgress() { session_.report_progress_to(nullptr); }

void ExecutionProgress::execution_finished() { bar_.update(double(++finished_)); }

}  // namespace nsim::tools
