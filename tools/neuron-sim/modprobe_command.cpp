#include "neuron-sim/modprobe_command.h"

#include <fmt/format.h>

#include "common/tool_main.h"
#include "host_state.h"
#include "neuron_driver.h"
#include "simulated_host.h"

namespace nsim::tools {

int run_modprobe(const MachineSelection& machine, const std::string& module) {
    // kmod's words, where the real tool names /lib/modules/<kernel release>.
    if (module != driver::kModuleName)
        throw UserError(fmt::format("FATAL: Module {} not found (the simulated host has only the {} module)", module,
                                    driver::kModuleName));
    const config::HostSpec spec = machine.resolve_host();
    driver::HostState state(driver::HostState::default_home(), spec.instance.name);
    driver::SimulatedHost host(spec, driver::SimulatedHost::faults_from(state));
    driver::NeuronDriver neuron(host.platform(), state);
    std::vector<std::string> failures;
    try {
        failures = neuron.modprobe();
    } catch (const driver::DriverError& e) {
        throw UserError(e.what());
    }
    if (failures.empty()) return 0;
    throw UserError(fmt::format("{}{} (device INVALID; kernel log: {})", failures.front(),
                                failures.size() > 1 ? fmt::format(", and {} more devices failed", failures.size() - 1) : "",
                                (state.dir() / "kernel.log").string()));
}

}  // namespace nsim::tools
