// The PCI side of module load: find every function on the simulated bus whose configuration space
// says vendor:device is one the driver serves, enable it (memory decode, bus mastering) and size and
// locate its BARs with the standard protocol, as pci_enable_device / pci_resource_* give a real driver.
#pragma once

#include <cstdint>
#include <vector>

#include "platform/pcie_root_complex.h"

namespace nsim::driver {

struct ProbedBar {
    uint32_t index = 0;
    uint64_t address = 0;
    uint64_t size = 0;
};

struct ProbedFunction {
    sim::PciAddress address;
    uint16_t vendor_id = 0;
    uint16_t device_id = 0;
    uint8_t revision = 0;
    std::vector<ProbedBar> bars;
    const ProbedBar* bar(uint32_t index) const;
};

// Matching functions in bus/device/function order.
std::vector<ProbedFunction> probe_pci_bus(sim::PcieRootComplex& bus, uint16_t vendor_id, uint16_t device_id);

}  // namespace nsim::driver
