#include "simulated_host.h"

#include <stdexcept>

#include "fault_switches.h"
#include "firmware/firmware_set.h"

namespace nsim::driver {

SimulatedHost::SimulatedHost(const config::HostSpec& spec, const HardwareFaults& faults) {
    if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
        throw std::logic_error("a process can elaborate only one simulated host (SystemC allows one elaboration)");
    platform_ = std::make_unique<sim::Platform>("machine", spec);
    firmware_ = firmware::install_firmware(*platform_);
    for (auto& fw : firmware_) fw->set_reset_hang(faults.firmware_hang);
    sim::Platform::finish_elaboration();
}

HardwareFaults SimulatedHost::faults_from(const HostState& state) {
    HardwareFaults faults;
    faults.firmware_hang = FaultSwitches(state).should_fail(Fault::FirmwareHang);
    return faults;
}

}  // namespace nsim::driver
