#include "neuron-sim/host_presence.h"

#include <algorithm>

namespace nsim::tools {
namespace {
// Per core; neuron-top shows the newest, the rest is history for other readers.
constexpr size_t kActivitySamplesKept = 64;
}  // namespace

HostPresence::HostPresence(const config::HostSpec& spec, const sim::core::ProgramPlacement& placement)
    : placement_(placement),
      state_(std::make_unique<driver::HostState>(driver::HostState::default_home(), spec.instance.name)),
      session_(std::make_unique<driver::ProcessSession>(*state_)) {
    session_->update([&](driver::ProcessRecord& record) {
        record.open_devices = placement_.devices();
        for (const auto& core : placement_.cores) record.cores.push_back({core.device, core.core});
    });
    activity_ = std::make_unique<driver::ActivityPublisher>(*state_, session_->identity().pid, kActivitySamplesKept);
}

void HostPresence::publish(const sim::core::RunStatistics& interval) {
    // A core is busy while any of its engine or DMA queues is (as the runtime's EngineExecutor counts it).
    std::vector<driver::ActivityPublisher::CoreBusy> cores;
    for (const auto& core : placement_.cores) cores.push_back({{core.device, core.core}, 0.0});
    for (const auto& queue : interval.queues)
        if (queue.core < cores.size()) cores[queue.core].busy_s = std::max(cores[queue.core].busy_s, queue.busy_s);
    simulated_s_ += interval.time_s;
    activity_->publish(simulated_s_, interval.time_s, cores);
}

}  // namespace nsim::tools
