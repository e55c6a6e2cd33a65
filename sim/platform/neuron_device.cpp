#include "platform/neuron_device.h"

#include <stdexcept>

#include <fmt/format.h>

namespace nsim::sim {

static const config::BarSpec* bar_with_role(const config::ChipSpec& chip, const std::string& role) {
    for (const config::BarSpec& bar : chip.pci.bars)
        if (bar.role == role) return &bar;
    return nullptr;
}

NeuronDevice::NeuronDevice(sc_core::sc_module_name name, const config::ChipSpec& chip, unsigned index,
                           PciAddress pci_address, uint64_t host_memory_bytes)
    : sc_core::sc_module(name),
      chip_(chip),
      index_(index),
      map_(DeviceAddressMap::for_chip(chip)),
      endpoint_("pcie", chip, pci_address),
      interconnect_("interconnect"),
      dma_fabric_(chip.core.dma_engine_sustained_bytes_per_s * chip.core.dma_engines * chip.cores_per_device,
                  sc_core::SC_ZERO_TIME) {
    const config::BarSpec* register_bar = bar_with_role(chip, "registers");
    if (!register_bar) throw std::invalid_argument(fmt::format("chip {} has no register BAR", chip.name));
    registers_ = std::make_unique<RegisterFile>("registers", register_bar->size_bytes);

    // Host accesses: each BAR lands where its role says.
    for (const config::BarSpec& bar : chip.pci.bars) {
        if (bar.role == "registers") {
            endpoint_.bar_out.bind(registers_->socket);
        } else {
            endpoint_.bar_out.bind(interconnect_.input);
            endpoint_.set_bar_target_base(bar.index, bar.role == "device-memory" ? 0 : map_.onchip_base);
        }
    }

    const double channel_rate = chip.memory.channel_bytes_per_s();
    const sc_core::sc_time memory_latency(chip.memory.latency_s, sc_core::SC_SEC);
    for (unsigned c = 0; c < chip.memory.channels; ++c) {
        channels_.push_back(std::make_unique<TimedMemory>(fmt::format("memory{}", c).c_str(),
                                                          chip.memory.channel_bytes, channel_rate,
                                                          memory_latency));
        const unsigned port = bind_output(channels_.back()->socket);
        interconnect_.map(map_.channel(c), map_.channel_size, port, fmt::format("memory{}", c));
    }

    for (unsigned i = 0; i < chip.cores_per_device; ++i) {
        cores_.push_back(std::make_unique<NeuronCore>(fmt::format("nc{}", i).c_str(), chip.core, i));
        NeuronCore& core = *cores_.back();
        interconnect_.map(map_.sbuf(i), core.sbuf().size(), bind_output(core.sbuf().socket),
                          fmt::format("nc{}.sbuf", i));
        interconnect_.map(map_.psum(i), core.psum().size(), bind_output(core.psum().socket),
                          fmt::format("nc{}.psum", i));
    }

    // Device-initiated accesses to host memory leave through the PCIe function; the window sits
    // above everything else in the device's address space.
    host_window_base_ = next_power_of_two(map_.link(chip.link.ports));
    // A chip whose register map names where its DMA sees host memory (pci_host_base) puts it there, so
    // the driver's bus addresses and the device agree.
    if (chip.registers.present) {
        if (chip.registers.pci_host_base < host_window_base_)
            throw std::invalid_argument(fmt::format("chip {}: pci_host_base {:#x} overlaps the device's own address space (up to {:#x})",
                                                    chip.name, chip.registers.pci_host_base, host_window_base_));
        host_window_base_ = chip.registers.pci_host_base;
    }
    interconnect_.map(host_window_base_, host_memory_bytes, bind_output(endpoint_.dma_in), "host");

    unsigned engine = 0;
    for (unsigned core = 0; core < chip.cores_per_device; ++core)
        for (unsigned e = 0; e < chip.core.dma_engines; ++e, ++engine) {
            dma_.push_back(std::make_unique<DmaEngine>(fmt::format("dma{}", engine).c_str(), engine, core,
                                                       chip.core.dma_queues_per_engine,
                                                       chip.core.dma_engine_bytes_per_s, dma_fabric()));
            dma_.back()->socket.bind(interconnect_.input);
        }

    if (chip.registers.present) {
        udma_ = std::make_unique<UdmaQueues>("udma", chip, *registers_, dma_);
        udma_->descriptor_port.bind(interconnect_.input);
        doorbells_ = std::make_unique<ExecutionDoorbells>("doorbells", chip, *registers_);
        doorbells_->notification_port.bind(interconnect_.input);
    }
}

unsigned NeuronDevice::bind_output(tlm::tlm_base_target_socket_b<>& target) {
    interconnect_.output.bind(target);
    return outputs_bound_++;
}

void NeuronDevice::attach_link(tlm::tlm_base_target_socket_b<>& towards_peer, unsigned peer) {
    const unsigned port = unsigned(peers_.size());
    if (port >= chip_.link.ports)
        throw std::invalid_argument(fmt::format("device {} has only {} link ports", index_, chip_.link.ports));
    interconnect_.map(map_.link(port), map_.link_window, bind_output(towards_peer),
                      fmt::format("link{}->device{}", port, peer));
    peers_.push_back(peer);
}

}  // namespace nsim::sim
