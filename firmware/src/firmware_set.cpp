#include "firmware/firmware_set.h"

#include <fmt/format.h>

namespace nsim::firmware {

std::vector<std::unique_ptr<DeviceFirmware>> install_firmware(sim::Platform& platform) {
    std::vector<std::unique_ptr<DeviceFirmware>> firmware;
    for (const auto& device : platform.devices())
        firmware.push_back(std::make_unique<DeviceFirmware>(fmt::format("firmware{}", device->index()).c_str(), *device));
    return firmware;
}

}  // namespace nsim::firmware
