// How a device's internal (device-physical) address space is laid out in the simulator. Derived
// from the chip's sizes, so it adapts to any chip a config describes:
//   [0, memory_size)                       device memory, channel after channel
//   onchip_base + i * core_window           core i's SBUF, its PSUM right after it
//   link_base + k * link_window             through link port k: the peer device's memory
#pragma once

#include <cstdint>

#include "config/host_spec.h"

namespace nsim::sim {

struct DeviceAddressMap {
    uint64_t memory_size = 0;
    uint64_t channel_size = 0;
    uint64_t onchip_base = 0;
    uint64_t core_window = 0;
    uint64_t sbuf_size = 0;
    uint64_t link_base = 0;
    uint64_t link_window = 0;

    static DeviceAddressMap for_chip(const config::ChipSpec& chip);

    uint64_t channel(unsigned c) const { return uint64_t(c) * channel_size; }
    uint64_t sbuf(unsigned core) const { return onchip_base + core * core_window; }
    uint64_t psum(unsigned core) const { return sbuf(core) + sbuf_size; }
    uint64_t link(unsigned port) const { return link_base + port * link_window; }
};

// The smallest power of two at least `v` (1 for 0): BAR and window sizes.
uint64_t next_power_of_two(uint64_t v);

}  // namespace nsim::sim
