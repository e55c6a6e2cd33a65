// A progress bar on stderr for long runs: drawn only when stderr is a terminal and only once the
// work has taken more than a second of host time, so short runs and pipes/logs stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace nsim::tools {

class ProgressBar {
public:
    ProgressBar(std::string label, uint64_t total);
    ~ProgressBar();  // clears the line if anything was drawn
    void update(uint64_t done);

private:
    std::string label_;
    uint64_t total_;
    bool terminal_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace nsim::tools
