#include "platform/pcie_root_complex.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace nsim::sim {

PcieRootComplex::PcieRootComplex(sc_core::sc_module_name name)
    : sc_core::sc_module(name), fabric("fabric") {}

void PcieRootComplex::attach_host_memory(TimedMemory& memory) {
    if (host_memory_) throw std::logic_error("host memory attached twice");
    host_memory_ = &memory;
    fabric.output.bind(memory.socket);
    fabric.map(0, memory.size(), 0, "host-memory");
}

void PcieRootComplex::attach_endpoint(PcieEndpoint& endpoint) {
    if (!host_memory_) throw std::logic_error("attach host memory before endpoints");
    fabric.output.bind(endpoint.downstream);
    endpoint.upstream.bind(fabric.input);
    endpoints_.push_back(&endpoint);
}

PcieEndpoint* PcieRootComplex::find(const PciAddress& address) const {
    for (PcieEndpoint* e : endpoints_)
        if (e->address() == address) return e;
    return nullptr;
}

uint32_t PcieRootComplex::config_read32(const PciAddress& address, uint32_t offset) const {
    const PcieEndpoint* e = find(address);
    return e ? e->config_space().read32(offset) : 0xffffffffu;
}

void PcieRootComplex::config_write32(const PciAddress& address, uint32_t offset, uint32_t value) {
    if (PcieEndpoint* e = find(address)) e->config_space().write32(offset, value);
}

static uint64_t align_up(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

void PcieRootComplex::enumerate() {
    struct Placement {
        unsigned port;
        PcieEndpoint* endpoint;
        uint32_t bar;
        uint64_t size;
    };
    std::vector<Placement> placements;
    for (size_t i = 0; i < endpoints_.size(); ++i) {
        PcieEndpoint* e = endpoints_[i];
        for (const auto& bar : e->config_space().bars()) {
            // Size each BAR with the standard protocol rather than trusting the spec table.
            const PciAddress a = e->address();
            const uint32_t low = pci::kBar0 + 4 * bar.index;
            config_write32(a, low, 0xffffffffu);
            config_write32(a, low + 4, 0xffffffffu);
            const uint64_t mask = (uint64_t(config_read32(a, low + 4)) << 32) |
                                  (config_read32(a, low) & ~0xfu);
            placements.push_back({unsigned(i + 1), e, bar.index, ~mask + 1});
        }
    }
    // Largest first keeps every BAR naturally aligned without holes between them.
    std::stable_sort(placements.begin(), placements.end(),
                     [](const Placement& a, const Placement& b) { return a.size > b.size; });
    uint64_t next = host_memory_->size();
    if (!placements.empty()) next = align_up(next, placements.front().size);
    for (const Placement& p : placements) {
        const PciAddress a = p.endpoint->address();
        const uint32_t low = pci::kBar0 + 4 * p.bar;
        config_write32(a, low, uint32_t(next));
        config_write32(a, low + 4, uint32_t(next >> 32));
        fabric.map(next, p.size, p.port, fmt::format("{} BAR{}", a.to_string(), p.bar), true);
        next += p.size;
    }
    for (PcieEndpoint* e : endpoints_)
        config_write32(e->address(), pci::kCommand, pci::kCommandMemorySpace | pci::kCommandBusMaster);
}

}  // namespace nsim::sim
