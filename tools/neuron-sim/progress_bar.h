// A progress bar on stderr for long runs: drawn only when stderr is a terminal and only once the
// work has taken more than a second of host time, so short runs and pipes/logs stay clean. The
// steps (executions) may be reported fractionally, so one long execution moves the bar too.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace nsim::tools {

class ProgressBar {
public:
    ProgressBar(std::string label, uint64_t total_steps);
    ~ProgressBar();  // clears the line if anything was drawn

    // `done` steps are finished; its fractional part is how far the current one has got.
    void update(double done);
    // Whether update() can draw at all (stderr is a terminal): callers skip measuring progress otherwise.
    bool on_terminal() const { return terminal_; }

private:
    using Clock = std::chrono::steady_clock;
    std::string label_;
    uint64_t total_;
    bool terminal_;
    bool drawn_ = false;
    Clock::time_point start_;
    Clock::time_point last_draw_;
};

}  // namespace nsim::tools
