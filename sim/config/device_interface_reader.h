// Reading a chip's optional `registers:`, `firmware:` and `driver:` sections (device_interface_spec.h).
#pragma once

#include <cstdint>

#include "config/config_node.h"
#include "config/device_interface_spec.h"

namespace nsim::config {

// `register_bar_bytes` bounds every offset; `dma_engines` (per device) sizes the UDMA block.
RegisterMapSpec read_register_map(const ConfigNode& node, uint64_t register_bar_bytes, uint32_t cores, uint32_t dma_engines,
                                  uint32_t memory_channels);
FirmwareSpec read_firmware(const ConfigNode& node);
DriverSpec read_driver(const ConfigNode& node);

}  // namespace nsim::config
