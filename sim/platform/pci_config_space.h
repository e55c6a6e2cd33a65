// The type-0 PCI configuration header of a device function: identity (vendor, device, revision)
// and 64-bit memory BARs with the standard sizing protocol (write all-ones, read back the mask),
// so a driver enumerates the simulated device exactly as it would a real one.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "config/host_spec.h"

namespace nsim::sim {

// Register offsets and bits defined by the PCI Local Bus specification (not device specific).
namespace pci {
inline constexpr uint32_t kVendorId = 0x00;
inline constexpr uint32_t kCommand = 0x04;       // 16-bit command, 16-bit status above it
inline constexpr uint32_t kRevisionClass = 0x08;
inline constexpr uint32_t kHeaderType = 0x0c;    // byte 2 of this dword
inline constexpr uint32_t kBar0 = 0x10;
inline constexpr uint32_t kBarCount = 6;
inline constexpr uint32_t kConfigSpaceBytes = 256;
inline constexpr uint16_t kCommandMemorySpace = 1u << 1;
inline constexpr uint16_t kCommandBusMaster = 1u << 2;
inline constexpr uint32_t kBarMemory64 = 0x4;    // type bits [2:1] = 10b
inline constexpr uint32_t kBarPrefetchable = 0x8;
}  // namespace pci

class PciConfigSpace {
public:
    explicit PciConfigSpace(const config::PciSpec& spec);

    uint32_t read32(uint32_t offset) const;
    void write32(uint32_t offset, uint32_t value);

    uint16_t vendor_id() const;
    uint16_t device_id() const;
    uint8_t revision() const;
    bool memory_enabled() const;
    bool bus_master_enabled() const;

    // A BAR as the spec declares it, and where enumeration placed it.
    struct Bar {
        uint32_t index;
        uint64_t size;
        bool prefetchable;
    };
    const std::vector<Bar>& bars() const { return bars_; }
    // The programmed base address of BAR `index` (a 64-bit BAR spans index and index+1).
    std::optional<uint64_t> bar_base(uint32_t index) const;

private:
    const Bar* bar_at_slot(uint32_t slot, bool* upper_half) const;

    std::array<uint32_t, pci::kConfigSpaceBytes / 4> dwords_{};
    std::vector<Bar> bars_;
};

}  // namespace nsim::sim
