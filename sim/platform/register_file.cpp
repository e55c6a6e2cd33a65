#include "platform/register_file.h"

#include <cstring>

namespace nsim::sim {

RegisterFile::RegisterFile(sc_core::sc_module_name name, uint64_t size_bytes)
    : sc_core::sc_module(name), socket("socket"), size_(size_bytes) {
    socket.register_b_transport(this, &RegisterFile::b_transport);
    socket.register_transport_dbg(this, &RegisterFile::transport_dbg);
}

uint32_t RegisterFile::peek(uint64_t offset) const {
    auto it = values_.find(offset);
    return it == values_.end() ? 0 : it->second;
}

void RegisterFile::poke(uint64_t offset, uint32_t value) { values_[offset] = value; }

// Registers are 32 bits wide and naturally aligned; anything else is a bus error.
unsigned int RegisterFile::transport_dbg(tlm::tlm_generic_payload& payload) {
    const uint64_t offset = payload.get_address();
    if (payload.get_data_length() != 4 || offset % 4 != 0 || offset >= size_) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    uint32_t value = 0;
    if (payload.is_write()) {
        std::memcpy(&value, payload.get_data_ptr(), 4);
        auto hook = write_hooks_.find(offset);
        values_[offset] = value;
        if (hook != write_hooks_.end()) hook->second(value);
    } else {
        auto hook = read_hooks_.find(offset);
        value = hook != read_hooks_.end() ? hook->second() : peek(offset);
        std::memcpy(payload.get_data_ptr(), &value, 4);
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    return 4;
}

void RegisterFile::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
    transport_dbg(payload);
}

}  // namespace nsim::sim
