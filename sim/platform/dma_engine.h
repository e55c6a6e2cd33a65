// A DMA engine of a device: an initiator into the device interconnect (device memory, SBUF/PSUM of
// every core, host memory through the PCIe endpoint, peers through NeuronLink) with its queues.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "platform/bandwidth_model.h"

namespace nsim::sim {

class DmaEngine : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<DmaEngine> socket;

    // `fabric`: what the device's engines share (NeuronDevice::dma_fabric), null for none.
    DmaEngine(sc_core::sc_module_name name, unsigned index, unsigned owner_core, unsigned queues,
              double bytes_per_s, BandwidthModel* fabric = nullptr)
        : sc_core::sc_module(name),
          socket("socket"),
          index_(index),
          owner_core_(owner_core),
          queues_(queues),
          engine_(bytes_per_s, sc_core::SC_ZERO_TIME),
          fabric_(fabric) {}

    // Moves `length` bytes from device address `source` to `destination` (either may be device
    // memory, SBUF/PSUM, the host window or a link window), starting at `delay` past the current
    // simulated time; advances `delay` to the moment the last byte is written. Returns false if
    // either side answered with an error (nothing further is written then).
    bool copy(uint64_t source, uint64_t destination, uint64_t length, sc_core::sc_time& delay);

    unsigned index() const { return index_; }
    unsigned owner_core() const { return owner_core_; }
    unsigned queues() const { return queues_; }
    BandwidthModel& engine_timing() { return engine_; }

private:
    bool access(tlm::tlm_command command, uint64_t address, uint8_t* data, uint64_t length,
                sc_core::sc_time& delay);

    unsigned index_;
    unsigned owner_core_;
    unsigned queues_;
    BandwidthModel engine_;
    BandwidthModel* fabric_;
};

}  // namespace nsim::sim
