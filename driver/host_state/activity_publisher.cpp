#include "activity_publisher.h"

#include <algorithm>
#include <chrono>

namespace nsim::driver {

double wall_clock_now_s() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ActivityPublisher::ActivityPublisher(const HostState& state, int pid, size_t samples_kept, std::string tag)
    : state_(state), pid_(pid), kept_(samples_kept == 0 ? 1 : samples_kept), tag_(std::move(tag)) {}

void ActivityPublisher::count_execution(Outcome outcome, double total_latency_s, double device_latency_s) {
    switch (outcome) {
        case Outcome::Completed:
            ++executions_.completed;
            executions_.total_latency_s.push_back(total_latency_s);
            executions_.device_latency_s.push_back(device_latency_s);
            break;
        case Outcome::CompletedWithError: ++executions_.completed_with_err; break;
        case Outcome::TimedOut: ++executions_.timed_out; break;
        case Outcome::Failed: ++executions_.failed; break;
    }
    // As many latencies as samples: enough for the percentiles of a monitoring period.
    for (auto* latencies : {&executions_.total_latency_s, &executions_.device_latency_s})
        if (latencies->size() > kept_) latencies->erase(latencies->begin(), latencies->end() - long(kept_));
}

void ActivityPublisher::publish(double sim_end_s, double first_interval_s, const std::vector<CoreBusy>& cores,
                                double application_total_s) {
    for (const CoreBusy& core : cores) {
        auto& samples = samples_[core.core];
        double& application_before = application_at_last_sample_[core.core];
        const double interval_s = samples.empty() ? first_interval_s
                                                  : sim_end_s - samples.back().sim_end_s + (application_total_s - application_before);
        application_before = application_total_s;
        samples.push_back({sim_end_s, std::max(interval_s, core.busy_s), core.busy_s, core.flops});
        if (samples.size() > kept_) samples.erase(samples.begin(), samples.end() - long(kept_));
    }
    ActivityRecord record;
    record.pid = pid_;
    record.updated_wall_s = wall_clock_now_s();
    // How often this process publishes tells neuron-top when silence means it stopped executing.
    record.publish_period_wall_s = last_wall_s_ > 0 ? record.updated_wall_s - last_wall_s_ : 0;
    last_wall_s_ = record.updated_wall_s;
    for (const auto& [core, samples] : samples_) record.cores.push_back({core, samples});
    record.tag = tag_;
    record.executions = executions_;
    state_.write_activity(record);
}

}  // namespace nsim::driver
