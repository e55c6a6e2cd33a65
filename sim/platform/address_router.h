// An address decoder: a TLM target that forwards each transaction to the output whose window
// contains its address, with the address made relative to that window. Windows must not overlap.
// Addresses no window claims end in TLM_ADDRESS_ERROR_RESPONSE, like a master abort on a bus.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace nsim::sim {

class AddressRouter : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<AddressRouter> input;
    tlm_utils::multi_passthrough_initiator_socket<AddressRouter> output;

    explicit AddressRouter(sc_core::sc_module_name name);

    // Forwards [base, base + size) to output port `port` (ports count in binding order).
    // `keep_absolute` forwards the address unchanged instead of relative to base.
    void map(uint64_t base, uint64_t size, unsigned port, std::string label, bool keep_absolute = false);

    struct Window {
        uint64_t base;
        uint64_t size;
        unsigned port;
        std::string label;
        bool keep_absolute;
    };
    const std::vector<Window>& windows() const { return windows_; }
    const Window* decode(uint64_t address) const;

private:
    void b_transport(int input_port, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    unsigned int transport_dbg(int input_port, tlm::tlm_generic_payload& payload);

    std::vector<Window> windows_;
};

}  // namespace nsim::sim
