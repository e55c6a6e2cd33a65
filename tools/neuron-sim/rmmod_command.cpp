#include "neuron-sim/rmmod_command.h"

#include <fmt/format.h>

#include "common/tool_main.h"
#include "host_state.h"
#include "neuron_driver.h"
#include "simulated_host.h"

namespace nsim::tools {

int run_rmmod(const MachineSelection& machine, const std::string& module) {
    // kmod's words for a module that is not in the kernel.
    if (module != driver::kModuleName) throw UserError(fmt::format("ERROR: Module {} is not currently loaded", module));
    const config::HostSpec spec = machine.resolve_host();
    driver::HostState state(driver::HostState::default_home(), spec.instance.name);
    // Unloading touches no hardware; the driver object only needs this process's view of the host.
    driver::SimulatedHost host(spec, {});
    driver::NeuronDriver neuron(host.platform(), state);
    try {
        neuron.rmmod();
    } catch (const driver::DriverError& e) {
        throw UserError(e.what());
    }
    return 0;
}

}  // namespace nsim::tools
