// This process's NeuronCore activity in the host state (activity/<pid>.json), which neuron-top reads:
// each publish() adds one interval of simulated time per core (how long the core was busy in it) and
// replaces the record atomically. Only the newest samples of each core are kept.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "host_state.h"

namespace nsim::driver {

// The clock of ActivityRecord::updated_wall_s: wall seconds since the epoch.
double wall_clock_now_s();

class ActivityPublisher {
public:
    ActivityPublisher(const HostState& state, int pid, size_t samples_kept);

    struct CoreBusy {
        CoreId core;
        double busy_s = 0;
    };
    // `sim_end_s`: simulated time at the end of the interval, `interval_s` its length.
    void publish(double sim_end_s, double interval_s, const std::vector<CoreBusy>& cores);

private:
    const HostState& state_;
    int pid_;
    size_t kept_;
    std::map<CoreId, std::vector<ActivitySample>> samples_;
    double last_wall_s_ = 0;   // of the previous publish; 0 before the first
};

}  // namespace nsim::driver
