// The firmware of one Neuron device, as a device-side agent: it owns MISC RAM in BAR0 through the
// register file's hooks and reaches host memory only over the device's own interconnect (the host
// window), so the driver can talk to it only through registers and memory, as on real hardware.
//   boot      the device-id word reads the chip's not-ready value until boot_time has passed
//   mailbox   doorbell -> read the request from host memory, check seq and CRC-32C, run it, write the
//             response (seq last) after the service time
//   reset     reset type (+ core map) then doorbell -> the reset word is cleared to acknowledge, the ready
//             bit shows "resetting" until the reset time has passed
//   health    ECC counters (corrected in the upper, uncorrected in the lower half of each word)
// Times are simulated: state changes are evaluated against sc_time_stamp() when a register is read.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "config/host_spec.h"
#include "platform/neuron_device.h"

namespace nsim::firmware {

class DeviceFirmware : public sc_core::sc_module {
public:
    // Bound to the device's interconnect by the constructor.
    tlm_utils::simple_initiator_socket<DeviceFirmware> host_port;

    DeviceFirmware(sc_core::sc_module_name name, sim::NeuronDevice& device);

    // Hardware faults a test or the simulated host can switch on.
    // A hung firmware never acknowledges a reset (the reset word keeps its value, ready never returns).
    void set_reset_hang(bool hang) { reset_hang_ = hang; }
    // Adds memory errors the firmware has counted on a channel.
    void inject_memory_ecc(unsigned channel, uint16_t corrected, uint16_t uncorrected);

    bool booted() const;
    uint64_t mailbox_requests() const { return mailbox_requests_; }
    uint64_t resets_requested() const { return resets_started_; }

private:
    uint64_t misc(uint32_t offset) const { return spec_.misc_ram + offset; }
    void hook_registers();
    void on_doorbell();
    void start_reset(uint32_t type);
    bool resetting() const;
    uint32_t status_word() const;
    uint32_t reset_word();
    uint32_t read_word(uint64_t bar0_offset) const;
    void serve_mailbox();
    bool host_access(tlm::tlm_command command, uint64_t address, void* data, uint32_t length);
    uint64_t register_pair(uint32_t hi, uint32_t lo) const;

    sim::NeuronDevice& device_;
    sim::RegisterFile& registers_;
    const config::RegisterMapSpec spec_;
    const config::FirmwareSpec fw_;
    const sc_core::sc_time boot_done_;
    sc_core::sc_event mailbox_event_;
    bool reset_hang_ = false;
    bool reset_pending_ = false;   // requested, not yet acknowledged
    sc_core::sc_time reset_ack_at_ = sc_core::SC_ZERO_TIME;
    sc_core::sc_time reset_done_at_ = sc_core::SC_ZERO_TIME;
    uint32_t reset_type_ = 0;
    uint64_t resets_started_ = 0;
    uint64_t mailbox_requests_ = 0;
    uint8_t last_served_seq_ = 0;
    std::vector<uint32_t> memory_ecc_;
};

}  // namespace nsim::firmware
