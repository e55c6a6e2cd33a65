// Powers up the firmware of every device of a platform. Call before Platform::finish_elaboration():
// the firmware agents are SystemC modules bound into each device.
#pragma once

#include <memory>
#include <vector>

#include "firmware/device_firmware.h"
#include "platform/platform.h"

namespace nsim::firmware {

std::vector<std::unique_ptr<DeviceFirmware>> install_firmware(sim::Platform& platform);

}  // namespace nsim::firmware
