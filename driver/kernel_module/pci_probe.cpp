#include "pci_probe.h"

#include "platform/pci_config_space.h"

namespace nsim::driver {
namespace {

// The PCI bus numbering limits (PCI Local Bus specification), not device numbers.
constexpr uint32_t kBuses = 256, kDevices = 32, kFunctions = 8;
constexpr uint32_t kAbsent = 0xffffffff;
constexpr uint32_t kBarTypeMask = 0x6, kBarAddressMask = 0xf;

// Sizes BAR `slot`: write all ones, read back the mask, restore. Returns the slots it spans (0: none).
uint32_t size_bar(sim::PcieRootComplex& bus, const sim::PciAddress& a, uint32_t slot, ProbedBar* out) {
    const uint32_t offset = sim::pci::kBar0 + 4 * slot;
    const uint32_t low = bus.config_read32(a, offset);
    const bool is64 = (low & kBarTypeMask) == sim::pci::kBarMemory64;
    const uint32_t high = is64 ? bus.config_read32(a, offset + 4) : 0;
    bus.config_write32(a, offset, kAbsent);
    if (is64) bus.config_write32(a, offset + 4, kAbsent);
    const uint64_t low_mask = bus.config_read32(a, offset) & ~uint64_t(kBarAddressMask);
    const uint64_t high_mask = is64 ? bus.config_read32(a, offset + 4) : 0;
    bus.config_write32(a, offset, low);
    if (is64) bus.config_write32(a, offset + 4, high);
    if (low_mask == 0 && high_mask == 0) return is64 ? 2 : 1;  // unimplemented: hard-wired to zero
    // A 32-bit BAR decodes nothing above 4 GiB: its mask is all ones up there.
    const uint64_t mask = (is64 ? high_mask << 32 : uint64_t(0xffffffff) << 32) | low_mask;
    out->index = slot;
    out->size = ~mask + 1;
    out->address = (uint64_t(high) << 32) | (low & ~kBarAddressMask);
    return is64 ? 2 : 1;
}

}  // namespace

const ProbedBar* ProbedFunction::bar(uint32_t index) const {
    for (const auto& b : bars)
        if (b.index == index) return &b;
    return nullptr;
}

std::vector<ProbedFunction> probe_pci_bus(sim::PcieRootComplex& bus, uint16_t vendor_id, uint16_t device_id) {
    std::vector<ProbedFunction> found;
    for (uint32_t b = 0; b < kBuses; ++b)
        for (uint32_t d = 0; d < kDevices; ++d)
            for (uint32_t f = 0; f < kFunctions; ++f) {
                const sim::PciAddress address{b, d, f};
                const uint32_t id = bus.config_read32(address, sim::pci::kVendorId);
                if (id == kAbsent || (id & 0xffff) != vendor_id || (id >> 16) != device_id) continue;
                ProbedFunction function;
                function.address = address;
                function.vendor_id = uint16_t(id & 0xffff);
                function.device_id = uint16_t(id >> 16);
                function.revision = uint8_t(bus.config_read32(address, sim::pci::kRevisionClass) & 0xff);
                // pci_enable_device + pci_set_master
                const uint32_t command = bus.config_read32(address, sim::pci::kCommand);
                bus.config_write32(address, sim::pci::kCommand,
                                   command | sim::pci::kCommandMemorySpace | sim::pci::kCommandBusMaster);
                for (uint32_t slot = 0; slot < sim::pci::kBarCount;) {
                    ProbedBar bar;
                    const uint32_t span = size_bar(bus, address, slot, &bar);
                    if (bar.size) function.bars.push_back(bar);
                    slot += span;
                }
                found.push_back(function);
            }
    return found;
}

}  // namespace nsim::driver
