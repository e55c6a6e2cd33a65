// The simulated machine one process runs on: the SystemC platform elaborated from the HostSpec, the
// firmware of every device powered up, hardware faults from the host state applied, elaboration
// completed. This is the hardware; the driver only gets the Platform and reaches firmware through
// registers and memory. SystemC allows one per process.
#pragma once

#include <memory>
#include <vector>

#include "config/host_spec.h"
#include "firmware/device_firmware.h"
#include "platform/platform.h"

namespace nsim::driver {

class HostState;

struct HardwareFaults {
    bool firmware_hang = false;   // every device's firmware ignores reset requests
};

class SimulatedHost {
public:
    SimulatedHost(const config::HostSpec& spec, const HardwareFaults& faults);
    // Reads the hardware faults armed in the host state (consuming one use of a counted switch).
    static HardwareFaults faults_from(const HostState& state);

    sim::Platform& platform() { return *platform_; }
    firmware::DeviceFirmware& firmware(unsigned device) { return *firmware_.at(device); }

private:
    std::unique_ptr<sim::Platform> platform_;
    std::vector<std::unique_ptr<firmware::DeviceFirmware>> firmware_;
};

}  // namespace nsim::driver
