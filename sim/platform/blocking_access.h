// One blocking TLM-2.0 read or write of a plain byte buffer through an initiator socket: the
// host's CPU, DMA engines, the UDMA descriptor fetch and the firmware all issue accesses this way.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>

namespace nsim::sim {

// Fills `payload` for `length` bytes at `address` (no byte enables, no streaming, not yet answered).
inline void prepare_access(tlm::tlm_generic_payload& payload, tlm::tlm_command command, uint64_t address, void* data,
                           uint32_t length) {
    payload.set_command(command);
    payload.set_address(address);
    payload.set_data_ptr(static_cast<unsigned char*>(data));
    payload.set_data_length(length);
    payload.set_streaming_width(length);
    payload.set_byte_enable_ptr(nullptr);
    payload.set_dmi_allowed(false);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// Sends the access through `socket`, adding its latency to `delay`; true when the target answered OK.
template <typename InitiatorSocket>
bool blocking_access(InitiatorSocket& socket, tlm::tlm_command command, uint64_t address, void* data, uint32_t length,
                     sc_core::sc_time& delay) {
    tlm::tlm_generic_payload payload;
    prepare_access(payload, command, address, data, length);
    socket->b_transport(payload, delay);
    return payload.is_response_ok();
}

}  // namespace nsim::sim
