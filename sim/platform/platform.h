// The simulated host, elaborated from a HostSpec: host memory, the PCIe root complex, one
// NeuronDevice per chip of the instance on its BDF, and a NeuronLink for each linked pair.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "config/host_spec.h"
#include "platform/neuron_device.h"
#include "platform/neuron_link.h"
#include "platform/pcie_root_complex.h"
#include "platform/timed_memory.h"

namespace nsim::sim {

// The host CPU's port onto the PCIe hierarchy (MMIO to BARs, loads/stores to host memory).
class HostCpuPort : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<HostCpuPort> socket;
    explicit HostCpuPort(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {}
};

// A host access that the hierarchy rejected (no BAR or memory claims the address, bad size...).
class BusError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Platform : public sc_core::sc_module {
public:
    Platform(sc_core::sc_module_name name, const config::HostSpec& spec);

    // Completes SystemC elaboration (binds the multi-sockets, runs end_of_elaboration) so that
    // transactions can flow. After this no module can be added in this process.
    static void finish_elaboration();

    const config::HostSpec& spec() const { return spec_; }
    TimedMemory& host_memory() { return host_memory_; }
    PcieRootComplex& root_complex() { return root_complex_; }
    const PcieRootComplex& root_complex() const { return root_complex_; }
    const std::vector<std::unique_ptr<NeuronDevice>>& devices() const { return devices_; }
    const std::vector<std::unique_ptr<NeuronLink>>& links() const { return links_; }

    // A CPU load/store of `length` bytes at host physical `address`, issued at the current
    // simulated time; returns how long it takes. Throws BusError when nothing answers.
    sc_core::sc_time host_read(uint64_t address, void* data, uint32_t length);
    sc_core::sc_time host_write(uint64_t address, const void* data, uint32_t length);
    // Host physical address of BAR `bar` of device `device`.
    uint64_t bar_address(unsigned device, uint32_t bar) const;

private:
    sc_core::sc_time host_access(tlm::tlm_command command, uint64_t address, void* data, uint32_t length);

    config::HostSpec spec_;
    TimedMemory host_memory_;
    PcieRootComplex root_complex_;
    HostCpuPort cpu_;
    std::vector<std::unique_ptr<NeuronDevice>> devices_;
    std::vector<std::unique_ptr<NeuronLink>> links_;
};

}  // namespace nsim::sim
