#include "platform/platform.h"

#include <stdexcept>

#include <fmt/format.h>

#include "platform/blocking_access.h"

namespace nsim::sim {

// Host DRAM timing is not modelled: the PCIe link, not host memory, bounds every transfer here.
Platform::Platform(sc_core::sc_module_name name, const config::HostSpec& spec)
    : sc_core::sc_module(name),
      spec_(spec),
      host_memory_("host_memory", spec.instance.host_memory_bytes, 0, sc_core::SC_ZERO_TIME),
      root_complex_("pcie"),
      cpu_("cpu") {
    cpu_.socket.bind(root_complex_.fabric.input);
    root_complex_.attach_host_memory(host_memory_);

    const config::InstanceSpec& instance = spec.instance;
    for (unsigned d = 0; d < instance.devices; ++d) {
        devices_.push_back(std::make_unique<NeuronDevice>(fmt::format("device{}", d).c_str(), spec.chip, d,
                                                          PciAddress::parse(instance.pci_bdfs.at(d)),
                                                          instance.host_memory_bytes));
        root_complex_.attach_endpoint(devices_.back()->endpoint());
    }
    root_complex_.enumerate();

    // connected_to is symmetric (the config loader checks), so each pair gets one full-duplex link.
    for (unsigned a = 0; a < instance.devices && a < instance.connected_to.size(); ++a)
        for (unsigned b : instance.connected_to[a]) {
            if (b <= a) continue;
            links_.push_back(std::make_unique<NeuronLink>(fmt::format("link{}_{}", a, b).c_str(),
                                                          spec.chip.link, a, b));
            NeuronLink& link = *links_.back();
            devices_[a]->attach_link(link.from_a, b);
            devices_[b]->attach_link(link.from_b, a);
            link.to_b.bind(devices_[b]->interconnect().input);
            link.to_a.bind(devices_[a]->interconnect().input);
        }
}

void Platform::finish_elaboration() {
    if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

uint64_t Platform::bar_address(unsigned device, uint32_t bar) const {
    const auto base = devices_.at(device)->endpoint().config_space().bar_base(bar);
    if (!base) throw std::invalid_argument(fmt::format("device {} has no BAR{}", device, bar));
    return *base;
}

sc_core::sc_time Platform::host_access(tlm::tlm_command command, uint64_t address, void* data,
                                       uint32_t length) {
    tlm::tlm_generic_payload payload;
    prepare_access(payload, command, address, data, length);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    cpu_.socket->b_transport(payload, delay);
    if (!payload.is_response_ok())
        throw BusError(fmt::format("host {} of {} bytes at {:#x}: {}", command == tlm::TLM_READ_COMMAND ? "read" : "write",
                                   length, address, payload.get_response_string()));
    return delay;
}

sc_core::sc_time Platform::host_read(uint64_t address, void* data, uint32_t length) {
    return host_access(tlm::TLM_READ_COMMAND, address, data, length);
}

sc_core::sc_time Platform::host_write(uint64_t address, const void* data, uint32_t length) {
    return host_access(tlm::TLM_WRITE_COMMAND, address, const_cast<void*>(data), length);
}

}  // namespace nsim::sim
