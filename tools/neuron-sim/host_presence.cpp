#include "neuron-sim/host_presence.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/tool_main.h"
#include "neuron_driver.h"

namespace nsim::tools {
namespace {
// Per core; neuron-top shows the newest, the rest is history for other readers.
constexpr size_t kActivitySamplesKept = 64;
}  // namespace

HostPresence::HostPresence(const config::HostSpec& spec, const sim::core::ProgramPlacement& placement)
    : placement_(placement),
      state_(std::make_unique<driver::HostState>(driver::HostState::default_home(), spec.instance.name)),
      session_(std::make_unique<driver::ProcessSession>(*state_)) {
    driver::HostState::Lock lock = state_->lock();
    refuse_unusable_devices();
    // As the runtime's claim: a core another live process holds is refused, under the host's lock.
    for (const driver::ProcessRecord& other : state_->live_processes()) {
        if (other.pid == session_->identity().pid) continue;
        for (const auto& core : placement_.cores)
            if (std::find(other.cores.begin(), other.cores.end(), driver::CoreId{core.device, core.core}) != other.cores.end())
                throw UserError(fmt::format("NeuronCore nd{} nc{} is in use by PID {}: {}", core.device, core.core, other.pid,
                                            other.command));
    }
    session_->update([&](driver::ProcessRecord& record) {
        record.open_devices = placement_.devices();
        for (const auto& core : placement_.cores) record.cores.push_back({core.device, core.core});
    });
    activity_ = std::make_unique<driver::ActivityPublisher>(*state_, session_->identity().pid, kActivitySamplesKept);
}

void HostPresence::refuse_unusable_devices() const {
    // A host never brought up has nothing to refuse: its first user loads the module.
    const auto machine = state_->read_machine();
    if (!machine) return;
    if (!machine->driver_loaded)
        throw UserError(fmt::format("{} ({})", driver::module_not_loaded_error().what(), driver::kLoadAdvice));
    for (unsigned device : placement_.devices())
        if (device >= machine->devices.size() || machine->devices[device].state != driver::DeviceState::Ready)
            throw UserError(fmt::format("{} ({})", driver::invalid_state_error(device).what(), driver::kReloadAdvice));
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
