// A device's PCIe function: its configuration space, the link to the root complex (timed in each
// direction from the chip's PCIe parameters), BAR decoding for host accesses coming down, and the
// upstream path for the device's own DMA to host memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config/host_spec.h"
#include "platform/bandwidth_model.h"
#include "platform/pci_config_space.h"

namespace nsim::sim {

struct PciAddress {
    uint32_t bus = 0, device = 0, function = 0;
    static PciAddress parse(const std::string& bdf);  // "bb:dd.f" or "dddd:bb:dd.f"
    std::string to_string() const;                     // "bb:dd.f"
    bool operator==(const PciAddress& o) const {
        return bus == o.bus && device == o.device && function == o.function;
    }
};

class PcieEndpoint : public sc_core::sc_module {
public:
    // From the root complex: host reads/writes addressed to this device's BARs (absolute addresses).
    tlm_utils::simple_target_socket<PcieEndpoint> downstream;
    // Into the device: one port per BAR, in the order of the chip's BAR list; the address is the
    // offset inside the BAR plus the BAR's target base (see set_bar_target_base).
    tlm_utils::multi_passthrough_initiator_socket<PcieEndpoint> bar_out;
    // From the device's DMA engines: accesses to host memory, forwarded up the link.
    tlm_utils::simple_target_socket<PcieEndpoint> dma_in;
    tlm_utils::simple_initiator_socket<PcieEndpoint> upstream;

    PcieEndpoint(sc_core::sc_module_name name, const config::ChipSpec& chip, PciAddress address);

    PciConfigSpace& config_space() { return config_; }
    const PciConfigSpace& config_space() const { return config_; }
    const PciAddress& address() const { return address_; }
    const config::PcieLinkSpec& link() const { return link_spec_; }
    // BAR k's offsets are forwarded as (offset + base) on bar_out[k].
    void set_bar_target_base(uint32_t bar_index, uint64_t base);

    const BandwidthModel& to_device() const { return to_device_; }
    const BandwidthModel& to_host() const { return to_host_; }
    // The engines reserve the link directly for their DMA bursts to and from host memory.
    BandwidthModel& to_device() { return to_device_; }
    BandwidthModel& to_host() { return to_host_; }

private:
    void downstream_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    unsigned int downstream_dbg(tlm::tlm_generic_payload& payload);
    void dma_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    // Which bar_out port and device-side address a host address maps to; false if no BAR claims it.
    bool decode(uint64_t address, uint64_t length, unsigned* port, uint64_t* target) const;

    PciConfigSpace config_;
    PciAddress address_;
    config::PcieLinkSpec link_spec_;
    std::vector<uint64_t> bar_target_base_;
    BandwidthModel to_device_;
    BandwidthModel to_host_;
};

}  // namespace nsim::sim
