#include "platform/timed_memory.h"

namespace nsim::sim {

TimedMemory::TimedMemory(sc_core::sc_module_name name, uint64_t size_bytes, double bytes_per_s,
                         sc_core::sc_time latency)
    : sc_core::sc_module(name), socket("socket"), storage_(size_bytes), timing_(bytes_per_s, latency) {
    socket.register_b_transport(this, &TimedMemory::b_transport);
    socket.register_transport_dbg(this, &TimedMemory::transport_dbg);
}

unsigned int TimedMemory::transport_dbg(tlm::tlm_generic_payload& payload) {
    const uint64_t address = payload.get_address();
    const uint64_t length = payload.get_data_length();
    if (!storage_.contains(address, length)) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    if (payload.is_write())
        storage_.write(address, payload.get_data_ptr(), length);
    else if (payload.is_read())
        storage_.read(address, payload.get_data_ptr(), length);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    return static_cast<unsigned int>(length);
}

void TimedMemory::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    transport_dbg(payload);
    if (payload.is_response_ok()) annotate_transfer(timing_, payload.get_data_length(), delay);
}

}  // namespace nsim::sim
