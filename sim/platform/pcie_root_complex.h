// The host side of the PCIe hierarchy: decodes host physical addresses to host memory or to a
// device BAR, gives configuration-space access by bus/device/function, and enumerates the
// endpoints at boot (sizes and places every BAR, enables decoding), as platform firmware does.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>

#include "platform/address_router.h"
#include "platform/pcie_endpoint.h"
#include "platform/timed_memory.h"

namespace nsim::sim {

class PcieRootComplex : public sc_core::sc_module {
public:
    // Bind host initiators (the CPU) and every endpoint's upstream port to fabric.input.
    AddressRouter fabric;

    explicit PcieRootComplex(sc_core::sc_module_name name);

    void attach_host_memory(TimedMemory& memory);
    void attach_endpoint(PcieEndpoint& endpoint);
    // Assigns BAR addresses above host memory, enables memory decode and bus mastering.
    void enumerate();

    // Configuration reads of an absent function return all ones, as on a real bus.
    uint32_t config_read32(const PciAddress& address, uint32_t offset) const;
    void config_write32(const PciAddress& address, uint32_t offset, uint32_t value);
    const std::vector<PcieEndpoint*>& endpoints() const { return endpoints_; }

private:
    PcieEndpoint* find(const PciAddress& address) const;

    TimedMemory* host_memory_ = nullptr;
    std::vector<PcieEndpoint*> endpoints_;
};

}  // namespace nsim::sim
