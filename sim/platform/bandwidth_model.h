// The timing of anything that moves bytes at a sustained rate after a fixed latency: a PCIe link,
// a memory channel, a NeuronLink. Transfers queue behind each other, so concurrent users of the
// same resource see contention; the latency is pipelined and does not occupy the resource.
#pragma once

#include <cstdint>

#include <systemc>

namespace nsim::sim {

class BandwidthModel {
public:
    // bytes_per_s == 0 means the resource adds no transfer time (only latency).
    BandwidthModel(double bytes_per_s, sc_core::sc_time latency)
        : bytes_per_s_(bytes_per_s), latency_(latency) {}

    // A transfer of `bytes` is ready to start at absolute time `ready`; returns the absolute time
    // its last byte arrives.
    sc_core::sc_time transfer(sc_core::sc_time ready, uint64_t bytes);

    sc_core::sc_time transfer_time(uint64_t bytes) const;
    sc_core::sc_time latency() const { return latency_; }
    double bytes_per_s() const { return bytes_per_s_; }
    uint64_t bytes_moved() const { return bytes_moved_; }
    sc_core::sc_time busy_time() const { return busy_time_; }

private:
    double bytes_per_s_;
    sc_core::sc_time latency_;
    sc_core::sc_time free_at_ = sc_core::SC_ZERO_TIME;
    uint64_t bytes_moved_ = 0;
    sc_core::sc_time busy_time_ = sc_core::SC_ZERO_TIME;
};

// Annotates a loosely-timed TLM transaction: the initiator's local offset `delay` is advanced to the
// moment the resource finishes with it.
void annotate_transfer(BandwidthModel& model, uint64_t bytes, sc_core::sc_time& delay);

}  // namespace nsim::sim
