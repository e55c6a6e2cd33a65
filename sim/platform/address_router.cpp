#include "platform/address_router.h"

#include <stdexcept>

namespace nsim::sim {

AddressRouter::AddressRouter(sc_core::sc_module_name name)
    : sc_core::sc_module(name), input("input"), output("output") {
    input.register_b_transport(this, &AddressRouter::b_transport);
    input.register_transport_dbg(this, &AddressRouter::transport_dbg);
}

void AddressRouter::map(uint64_t base, uint64_t size, unsigned port, std::string label,
                        bool keep_absolute) {
    for (const Window& w : windows_)
        if (base < w.base + w.size && w.base < base + size)
            throw std::logic_error(std::string(name()) + ": window " + label + " overlaps " + w.label);
    windows_.push_back({base, size, port, std::move(label), keep_absolute});
}

const AddressRouter::Window* AddressRouter::decode(uint64_t address) const {
    for (const Window& w : windows_)
        if (address >= w.base && address - w.base < w.size) return &w;
    return nullptr;
}

void AddressRouter::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const uint64_t address = payload.get_address();
    const Window* window = decode(address);
    if (!window || payload.get_data_length() > window->size - (address - window->base)) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (!window->keep_absolute) payload.set_address(address - window->base);
    output[window->port]->b_transport(payload, delay);
    payload.set_address(address);
}

unsigned int AddressRouter::transport_dbg(int, tlm::tlm_generic_payload& payload) {
    const uint64_t address = payload.get_address();
    const Window* window = decode(address);
    if (!window) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    if (!window->keep_absolute) payload.set_address(address - window->base);
    const unsigned int n = output[window->port]->transport_dbg(payload);
    payload.set_address(address);
    return n;
}

}  // namespace nsim::sim
