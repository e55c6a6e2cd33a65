#include "platform/device_address_map.h"

namespace nsim::sim {

uint64_t next_power_of_two(uint64_t v) {
    uint64_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

DeviceAddressMap DeviceAddressMap::for_chip(const config::ChipSpec& chip) {
    DeviceAddressMap m;
    m.channel_size = chip.memory.channel_bytes;
    m.memory_size = chip.memory.total_bytes();
    m.sbuf_size = chip.core.sbuf.total_bytes();
    m.core_window = next_power_of_two(m.sbuf_size + chip.core.psum.total_bytes());
    m.onchip_base = next_power_of_two(m.memory_size);
    m.link_window = next_power_of_two(m.memory_size);
    m.link_base = next_power_of_two(m.onchip_base + uint64_t(chip.cores_per_device) * m.core_window);
    return m;
}

}  // namespace nsim::sim
