// A NeuronLink between two devices: a full-duplex point-to-point link, each direction timed by the
// chip's link bandwidth and latency. What enters one side lands in the other device's interconnect.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config/host_spec.h"
#include "platform/bandwidth_model.h"

namespace nsim::sim {

class NeuronLink : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<NeuronLink> from_a;
    tlm_utils::simple_initiator_socket<NeuronLink> to_b;
    tlm_utils::simple_target_socket<NeuronLink> from_b;
    tlm_utils::simple_initiator_socket<NeuronLink> to_a;

    NeuronLink(sc_core::sc_module_name name, const config::LinkSpec& spec, unsigned device_a, unsigned device_b);

    unsigned device_a() const { return device_a_; }
    unsigned device_b() const { return device_b_; }
    const BandwidthModel& a_to_b() const { return a_to_b_; }
    const BandwidthModel& b_to_a() const { return b_to_a_; }
    // The engines reserve the link directly for collectives and send/recv between devices.
    BandwidthModel& a_to_b() { return a_to_b_; }
    BandwidthModel& b_to_a() { return b_to_a_; }

private:
    void from_a_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void from_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void cross(BandwidthModel& direction, tlm_utils::simple_initiator_socket<NeuronLink>& out,
               tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

    unsigned device_a_, device_b_;
    BandwidthModel a_to_b_, b_to_a_;
};

}  // namespace nsim::sim
