// A device's BAR0 register space: 32-bit registers that read back what was written unless a
// device-side agent (firmware, DMA engines) hooks an offset to give it behaviour.
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace nsim::sim {

class RegisterFile : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<RegisterFile> socket;

    using ReadHook = std::function<uint32_t()>;
    using WriteHook = std::function<void(uint32_t value)>;

    RegisterFile(sc_core::sc_module_name name, uint64_t size_bytes);

    uint64_t size() const { return size_; }
    // Device-side access: bypasses hooks, as the agent that owns a register updates it.
    uint32_t peek(uint64_t offset) const;
    void poke(uint64_t offset, uint32_t value);
    void on_read(uint64_t offset, ReadHook hook) { read_hooks_[offset] = std::move(hook); }
    void on_write(uint64_t offset, WriteHook hook) { write_hooks_[offset] = std::move(hook); }

private:
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    unsigned int transport_dbg(tlm::tlm_generic_payload& payload);

    uint64_t size_;
    std::map<uint64_t, uint32_t> values_;
    std::map<uint64_t, ReadHook> read_hooks_;
    std::map<uint64_t, WriteHook> write_hooks_;
};

}  // namespace nsim::sim
