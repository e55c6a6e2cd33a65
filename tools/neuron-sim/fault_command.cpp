#include "neuron-sim/fault_command.h"

#include <iostream>

#include <fmt/format.h>

#include "common/tool_main.h"
#include "fault_switches.h"
#include "host_state.h"

namespace nsim::tools {
namespace {

std::string fault_names() {
    std::string names;
    for (const auto& f : driver::all_faults()) names += (names.empty() ? "" : ", ") + std::string(f.name);
    return names;
}

}  // namespace

int run_dmesg(const MachineSelection& machine) {
    const config::HostSpec spec = machine.resolve_host();
    const driver::HostState state(driver::HostState::default_home(), spec.instance.name);
    for (const std::string& line : state.kernel_log()) std::cout << line << "\n";
    return 0;
}

int run_fault(const MachineSelection& machine, const FaultOptions& options) {
    const config::HostSpec spec = machine.resolve_host();
    const driver::HostState state(driver::HostState::default_home(), spec.instance.name);
    const driver::FaultSwitches switches(state);
    if (options.action == "list") {
        for (const auto& f : driver::all_faults())
            std::cout << fmt::format("{:<22} {:>4}  {}\n", f.name, switches.value(f.fault), f.effect);
        return 0;
    }
    if (options.action == "clear" && options.name.empty()) {
        for (const auto& f : driver::all_faults()) switches.set(f.fault, 0);
        return 0;
    }
    const auto fault = driver::fault_from_name(options.name);
    if (!fault) throw UserError(fmt::format("unknown fault '{}' (one of: {})", options.name, fault_names()));
    if (options.times < -1) throw UserError(fmt::format("fault times must be -1 (always), 0 (off) or a count, not {}", options.times));
    switches.set(*fault, options.action == "clear" ? 0 : options.times);
    return 0;
}

}  // namespace nsim::tools
