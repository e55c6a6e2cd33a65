// This process's NeuronCore activity in the host state (activity/<pid>.json), which neuron-top reads:
// each publish() adds one interval per core (how long the core was busy in it) and
// replaces the record atomically. Only the newest samples of each core are kept. It carries the
// process's tag (NEURON_PROCESS_TAG) and its execution statistics for neuron-monitor too.
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
    ActivityPublisher(const HostState& state, int pid, size_t samples_kept, std::string tag = "");

    struct CoreBusy {
        CoreId core;
        double busy_s = 0;
        double flops = 0;
    };
    // A sample per core of `cores`, ending at simulated time `sim_end_s`. A core's interval runs from
    // its previous sample: the simulated time since (the runtime's own work between executions counts
    // as not busy) plus the application's own time since, from `application_total_s`, the running
    // total of wall time the application spent outside runtime calls (runtime/application_time.h),
    // which the simulated clock does not see. A core's first interval is `first_interval_s` long.
    void publish(double sim_end_s, double first_interval_s, const std::vector<CoreBusy>& cores, double application_total_s = 0);

    // One execution's outcome, counted in the next publish. Latencies only for completed ones.
    enum class Outcome { Completed, CompletedWithError, TimedOut, Failed };
    void count_execution(Outcome outcome, double total_latency_s = 0, double device_latency_s = 0);

private:
    const HostState& state_;
    int pid_;
    size_t kept_;
    std::map<CoreId, std::vector<ActivitySample>> samples_;
    std::map<CoreId, double> application_at_last_sample_;   // application_total_s of each core's last sample
    double last_wall_s_ = 0;   // of the previous publish; 0 before the first
    std::string tag_;
    ExecutionStats executions_;
};

}  // namespace nsim::driver
