// A memory as a TLM-2.0 target: sparse storage behind a bandwidth/latency model. Used for host
// memory, each device-memory channel, and each core's SBUF and PSUM.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "platform/bandwidth_model.h"
#include "platform/sparse_memory.h"

namespace nsim::sim {

class TimedMemory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<TimedMemory> socket;

    TimedMemory(sc_core::sc_module_name name, uint64_t size_bytes, double bytes_per_s,
                sc_core::sc_time latency);

    uint64_t size() const { return storage_.size(); }
    SparseMemory& storage() { return storage_; }
    const BandwidthModel& timing() const { return timing_; }
    // The engines reserve the channel directly for their DMA bursts (sim/core/engine_scheduler.h).
    BandwidthModel& timing() { return timing_; }

private:
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    unsigned int transport_dbg(tlm::tlm_generic_payload& payload);

    SparseMemory storage_;
    BandwidthModel timing_;
};

}  // namespace nsim::sim
