// A `neuron-sim run` as the simulated host sees it, so that neuron-ls and neuron-top in another
// terminal show it: the process holds the devices and NeuronCores its program is placed on
// (processes/<pid>.json) and publishes how busy each core was per interval of simulated time
// (activity/<pid>.json). Both go when the run ends.
#pragma once

#include <memory>

#include "activity_publisher.h"
#include "config/host_spec.h"
#include "core/program_placement.h"
#include "core/run_statistics.h"
#include "host_state.h"
#include "process_session.h"

namespace nsim::tools {

class HostPresence {
public:
    // Throws driver::HostStateError when the host state cannot be used; UserError, as the runtime
    // refuses to open the devices, when the neuron module is unloaded or one of the placement's
    // devices is not READY, and when another process holds one of the placement's cores.
    HostPresence(const config::HostSpec& spec, const sim::core::ProgramPlacement& placement);

    // One interval: the statistics of the iterations run since the previous call.
    void publish(const sim::core::RunStatistics& interval);

private:
    void refuse_unusable_devices() const;

    sim::core::ProgramPlacement placement_;
    std::unique_ptr<driver::HostState> state_;
    std::unique_ptr<driver::ProcessSession> session_;
    std::unique_ptr<driver::ActivityPublisher> activity_;
    double simulated_s_ = 0;
};

}  // namespace nsim::tools
