// One Neuron device (a chip on the PCIe bus): its PCIe function, BAR0 register file, device-memory
// channels, NeuronCores, DMA engines, and the interconnect that joins them and the link ports.
#pragma once

#include <memory>
#include <vector>

#include <systemc>

#include "config/host_spec.h"
#include "platform/address_router.h"
#include "platform/device_address_map.h"
#include "platform/dma_engine.h"
#include "platform/execution_doorbells.h"
#include "platform/neuron_core.h"
#include "platform/pcie_endpoint.h"
#include "platform/register_file.h"
#include "platform/timed_memory.h"
#include "platform/udma_queues.h"

namespace nsim::sim {

class NeuronDevice : public sc_core::sc_module {
public:
    NeuronDevice(sc_core::sc_module_name name, const config::ChipSpec& chip, unsigned index,
                 PciAddress pci_address, uint64_t host_memory_bytes);

    unsigned index() const { return index_; }
    const config::ChipSpec& chip() const { return chip_; }
    const DeviceAddressMap& address_map() const { return map_; }

    PcieEndpoint& endpoint() { return endpoint_; }
    const PcieEndpoint& endpoint() const { return endpoint_; }
    RegisterFile& registers() { return *registers_; }
    AddressRouter& interconnect() { return interconnect_; }
    const std::vector<std::unique_ptr<TimedMemory>>& memory_channels() const { return channels_; }
    const std::vector<std::unique_ptr<NeuronCore>>& cores() const { return cores_; }
    const std::vector<std::unique_ptr<DmaEngine>>& dma_engines() const { return dma_; }
    // The fabric every DMA engine of the device moves its bytes through (configs
    // dma_engine_sustained_bytes_per_s x the device's engines); null when the chip gives no limit.
    BandwidthModel* dma_fabric() { return dma_fabric_.bytes_per_s() > 0 ? &dma_fabric_ : nullptr; }

    // Connects link port `port` (an initiator towards the peer) and returns the socket the peer's
    // traffic must be bound to (this device's interconnect).
    void attach_link(tlm::tlm_base_target_socket_b<>& towards_peer, unsigned peer);
    const std::vector<unsigned>& linked_devices() const { return peers_; }
    // Where device DMA finds host memory in the device address space.
    uint64_t host_window_base() const { return host_window_base_; }
    // The UDMA queue registers' device side; null when the chip's config has no register map.
    UdmaQueues* udma() { return udma_.get(); }
    // The NeuronCores' execution doorbells and notification queues; null without a register map.
    ExecutionDoorbells* doorbells() { return doorbells_.get(); }

private:
    unsigned bind_output(tlm::tlm_base_target_socket_b<>& target);

    config::ChipSpec chip_;
    unsigned index_;
    DeviceAddressMap map_;
    PcieEndpoint endpoint_;
    std::unique_ptr<RegisterFile> registers_;
    AddressRouter interconnect_;
    std::vector<std::unique_ptr<TimedMemory>> channels_;
    std::vector<std::unique_ptr<NeuronCore>> cores_;
    BandwidthModel dma_fabric_;
    std::vector<std::unique_ptr<DmaEngine>> dma_;
    std::unique_ptr<UdmaQueues> udma_;
    std::unique_ptr<ExecutionDoorbells> doorbells_;
    std::vector<unsigned> peers_;
    unsigned outputs_bound_ = 0;
    uint64_t host_window_base_ = 0;
};

}  // namespace nsim::sim
