#include "platform/pci_config_space.h"

#include <stdexcept>
#include <string>

namespace nsim::sim {

PciConfigSpace::PciConfigSpace(const config::PciSpec& spec) {
    dwords_[pci::kVendorId / 4] = (spec.device_id << 16) | (spec.vendor_id & 0xffff);
    dwords_[pci::kRevisionClass / 4] = spec.revision & 0xff;
    for (const config::BarSpec& bar : spec.bars) {
        if (bar.index + 1 >= pci::kBarCount)
            throw std::invalid_argument("BAR" + std::to_string(bar.index) + " cannot hold a 64-bit BAR");
        // Device memory is prefetchable (the real driver maps it write-combined); registers are not.
        bars_.push_back({bar.index, bar.size_bytes, bar.role == "device-memory"});
        const uint32_t flags = pci::kBarMemory64 | (bars_.back().prefetchable ? pci::kBarPrefetchable : 0);
        dwords_[pci::kBar0 / 4 + bar.index] = flags;
    }
}

const PciConfigSpace::Bar* PciConfigSpace::bar_at_slot(uint32_t slot, bool* upper_half) const {
    for (const Bar& bar : bars_) {
        if (slot == bar.index) { *upper_half = false; return &bar; }
        if (slot == bar.index + 1) { *upper_half = true; return &bar; }
    }
    return nullptr;
}

uint32_t PciConfigSpace::read32(uint32_t offset) const {
    if (offset % 4 != 0 || offset >= pci::kConfigSpaceBytes) return 0xffffffffu;
    return dwords_[offset / 4];
}

void PciConfigSpace::write32(uint32_t offset, uint32_t value) {
    if (offset % 4 != 0 || offset >= pci::kConfigSpaceBytes) return;
    if (offset == pci::kCommand) {
        // Only memory-space and bus-master enables are implemented; status bits are read-only.
        const uint32_t writable = pci::kCommandMemorySpace | pci::kCommandBusMaster;
        dwords_[offset / 4] = (dwords_[offset / 4] & ~writable) | (value & writable);
        return;
    }
    if (offset >= pci::kBar0 && offset < pci::kBar0 + 4 * pci::kBarCount) {
        const uint32_t slot = (offset - pci::kBar0) / 4;
        bool upper = false;
        const Bar* bar = bar_at_slot(slot, &upper);
        if (!bar) return;  // unimplemented BARs are hard-wired to zero
        const uint64_t mask = ~(bar->size - 1);
        uint32_t& dword = dwords_[offset / 4];
        if (upper) {
            dword = value & uint32_t(mask >> 32);
        } else {
            const uint32_t flags = dword & 0xf;
            dword = (value & uint32_t(mask) & ~0xfu) | flags;
        }
    }
}

uint16_t PciConfigSpace::vendor_id() const { return dwords_[0] & 0xffff; }
uint16_t PciConfigSpace::device_id() const { return dwords_[0] >> 16; }
uint8_t PciConfigSpace::revision() const { return dwords_[pci::kRevisionClass / 4] & 0xff; }
bool PciConfigSpace::memory_enabled() const {
    return dwords_[pci::kCommand / 4] & pci::kCommandMemorySpace;
}
bool PciConfigSpace::bus_master_enabled() const {
    return dwords_[pci::kCommand / 4] & pci::kCommandBusMaster;
}

std::optional<uint64_t> PciConfigSpace::bar_base(uint32_t index) const {
    for (const Bar& bar : bars_) {
        if (bar.index != index) continue;
        const uint64_t low = dwords_[pci::kBar0 / 4 + index] & ~0xfull;
        const uint64_t high = dwords_[pci::kBar0 / 4 + index + 1];
        const uint64_t base = (high << 32) | low;
        if (base == 0) return std::nullopt;  // not assigned yet
        return base;
    }
    return std::nullopt;
}

}  // namespace nsim::sim
