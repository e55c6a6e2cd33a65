#include "platform/neuron_link.h"

namespace nsim::sim {

NeuronLink::NeuronLink(sc_core::sc_module_name name, const config::LinkSpec& spec, unsigned device_a,
                       unsigned device_b)
    : sc_core::sc_module(name),
      from_a("from_a"),
      to_b("to_b"),
      from_b("from_b"),
      to_a("to_a"),
      device_a_(device_a),
      device_b_(device_b),
      a_to_b_(spec.bytes_per_s, sc_core::sc_time(spec.latency_s, sc_core::SC_SEC)),
      b_to_a_(spec.bytes_per_s, sc_core::sc_time(spec.latency_s, sc_core::SC_SEC)) {
    from_a.register_b_transport(this, &NeuronLink::from_a_transport);
    from_b.register_b_transport(this, &NeuronLink::from_b_transport);
}

void NeuronLink::from_a_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    cross(a_to_b_, to_b, payload, delay);
}

void NeuronLink::from_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    cross(b_to_a_, to_a, payload, delay);
}

// Writes carry their data across; a read's request crosses empty and its data comes back the
// other way, which is the opposite direction's resource.
void NeuronLink::cross(BandwidthModel& direction, tlm_utils::simple_initiator_socket<NeuronLink>& out,
                       tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const uint64_t length = payload.get_data_length();
    annotate_transfer(direction, payload.is_write() ? length : 0, delay);
    out->b_transport(payload, delay);
    if (payload.is_read() && payload.is_response_ok())
        annotate_transfer(&direction == &a_to_b_ ? b_to_a_ : a_to_b_, length, delay);
}

}  // namespace nsim::sim
