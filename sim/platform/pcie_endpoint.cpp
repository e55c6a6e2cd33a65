#include "platform/pcie_endpoint.h"

#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

namespace nsim::sim {

PciAddress PciAddress::parse(const std::string& bdf) {
    PciAddress a;
    unsigned domain = 0;
    int consumed = 0;
    if (std::sscanf(bdf.c_str(), "%x:%x:%x.%x%n", &domain, &a.bus, &a.device, &a.function, &consumed) == 4 &&
        consumed == int(bdf.size()))
        return a;
    consumed = 0;
    if (std::sscanf(bdf.c_str(), "%x:%x.%x%n", &a.bus, &a.device, &a.function, &consumed) == 3 &&
        consumed == int(bdf.size()))
        return a;
    throw std::invalid_argument("not a PCI address (bb:dd.f): '" + bdf + "'");
}

std::string PciAddress::to_string() const {
    return fmt::format("{:02x}:{:02x}.{:x}", bus, device, function);
}

static sc_core::sc_time seconds(double s) { return sc_core::sc_time(s, sc_core::SC_SEC); }

PcieEndpoint::PcieEndpoint(sc_core::sc_module_name name, const config::ChipSpec& chip, PciAddress address)
    : sc_core::sc_module(name),
      downstream("downstream"),
      bar_out("bar_out"),
      dma_in("dma_in"),
      upstream("upstream"),
      config_(chip.pci),
      address_(address),
      link_spec_(chip.pcie),
      bar_target_base_(chip.pci.bars.size(), 0),
      to_device_(chip.pcie.bytes_per_s, seconds(chip.pcie.latency_s)),
      to_host_(chip.pcie.bytes_per_s, seconds(chip.pcie.latency_s)) {
    downstream.register_b_transport(this, &PcieEndpoint::downstream_b_transport);
    downstream.register_transport_dbg(this, &PcieEndpoint::downstream_dbg);
    dma_in.register_b_transport(this, &PcieEndpoint::dma_b_transport);
}

void PcieEndpoint::set_bar_target_base(uint32_t bar_index, uint64_t base) {
    const auto& bars = config_.bars();
    for (size_t k = 0; k < bars.size(); ++k)
        if (bars[k].index == bar_index) { bar_target_base_[k] = base; return; }
    throw std::invalid_argument(fmt::format("{}: no BAR{}", name(), bar_index));
}

bool PcieEndpoint::decode(uint64_t address, uint64_t length, unsigned* port, uint64_t* target) const {
    if (!config_.memory_enabled()) return false;
    const auto& bars = config_.bars();
    for (size_t k = 0; k < bars.size(); ++k) {
        const auto base = config_.bar_base(bars[k].index);
        if (!base || address < *base) continue;
        const uint64_t offset = address - *base;
        if (offset >= bars[k].size || length > bars[k].size - offset) continue;
        *port = unsigned(k);
        *target = offset + bar_target_base_[k];
        return true;
    }
    return false;
}

// A posted write crosses the link once with its data; a read sends a request down and its
// completion, carrying the data, back up.
void PcieEndpoint::downstream_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const uint64_t address = payload.get_address();
    const uint64_t length = payload.get_data_length();
    unsigned port = 0;
    uint64_t target = 0;
    if (!decode(address, length, &port, &target)) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    annotate_transfer(to_device_, payload.is_write() ? length : 0, delay);
    payload.set_address(target);
    bar_out[port]->b_transport(payload, delay);
    payload.set_address(address);
    if (payload.is_read() && payload.is_response_ok()) annotate_transfer(to_host_, length, delay);
}

unsigned int PcieEndpoint::downstream_dbg(tlm::tlm_generic_payload& payload) {
    const uint64_t address = payload.get_address();
    unsigned port = 0;
    uint64_t target = 0;
    if (!decode(address, payload.get_data_length(), &port, &target)) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    payload.set_address(target);
    const unsigned int n = bar_out[port]->transport_dbg(payload);
    payload.set_address(address);
    return n;
}

void PcieEndpoint::dma_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    if (!config_.bus_master_enabled()) {
        // A function without bus mastering cannot issue requests; the DMA sees an error.
        payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    const uint64_t length = payload.get_data_length();
    annotate_transfer(to_host_, payload.is_write() ? length : 0, delay);
    upstream->b_transport(payload, delay);
    if (payload.is_read() && payload.is_response_ok()) annotate_transfer(to_device_, length, delay);
}

}  // namespace nsim::sim
