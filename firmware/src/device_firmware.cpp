#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "firmware/device_firmware.h"

#include <stdexcept>

#include <fmt/format.h>

#include "firmware/fwio_protocol.h"
#include "platform/blocking_access.h"

namespace nsim::firmware {
namespace {

sc_core::sc_time seconds(double s) { return sc_core::sc_time(s, sc_core::SC_SEC); }

// The firmware's identity words: not hardware numbers but a synthetic serial unique per device.
uint64_t serial_number(const sim::NeuronDevice& device) {
    const sim::PciAddress& a = device.endpoint().address();
    return (uint64_t(device.chip().pci.device_id) << 32) | (a.bus << 16) | (a.device << 8) | (a.function << 4) |
           device.index();
}

}  // namespace

DeviceFirmware::DeviceFirmware(sc_core::sc_module_name name, sim::NeuronDevice& device)
    : sc_core::sc_module(name),
      host_port("host_port"),
      device_(device),
      registers_(device.registers()),
      spec_(device.chip().registers),
      fw_(device.chip().firmware),
      boot_done_(seconds(device.chip().firmware.boot_time_s)) {
    if (!spec_.present || !fw_.present)
        throw std::invalid_argument(fmt::format("chip {} has no 'registers'/'firmware' description in its config",
                                                device.chip().name));
    host_port.bind(device.interconnect().input);
    memory_ecc_.assign(device.chip().memory.channels, 0);
    hook_registers();

    sc_core::sc_spawn_options options;
    options.spawn_method();
    options.dont_initialize();
    options.set_sensitivity(&mailbox_event_);
    sc_core::sc_spawn([this] { serve_mailbox(); }, "mailbox", &options);
}

bool DeviceFirmware::booted() const { return sc_core::sc_time_stamp() >= boot_done_; }

void DeviceFirmware::hook_registers() {
    const uint64_t serial = serial_number(device_);
    // Until boot completes every MISC RAM word the firmware owns reads as "not ready".
    registers_.on_read(misc(spec_.device_id), [this] { return read_word(misc(spec_.device_id)); });
    registers_.on_read(misc(spec_.api_version), [this] { return read_word(misc(spec_.api_version)); });
    registers_.on_read(misc(spec_.firmware_status), [this] { return status_word(); });
    registers_.on_read(misc(spec_.reset), [this] { return reset_word(); });
    registers_.on_read(misc(spec_.sram_ecc), [this] { return read_word(misc(spec_.sram_ecc)); });
    for (unsigned c = 0; c < memory_ecc_.size(); ++c) {
        const uint64_t offset = misc(spec_.memory_ecc + 4 * c);
        registers_.on_read(offset, [this, offset] { return read_word(offset); });
    }
    registers_.poke(misc(spec_.serial_number_lo), uint32_t(serial));
    registers_.poke(misc(spec_.serial_number_hi), uint32_t(serial >> 32));
    registers_.on_write(misc(spec_.doorbell), [this](uint32_t) { on_doorbell(); });
}

uint32_t DeviceFirmware::read_word(uint64_t offset) const {
    if (offset == misc(spec_.device_id))
        return booted() ? device_.index() : fw_.device_id_not_ready;
    if (offset == misc(spec_.api_version)) return booted() ? fw_.api_version : fw_.device_id_not_ready;
    if (offset == misc(spec_.firmware_status)) return status_word();
    if (offset == misc(spec_.sram_ecc)) return booted() ? 0 : fw_.ecc_invalid;
    for (unsigned c = 0; c < memory_ecc_.size(); ++c)
        if (offset == misc(spec_.memory_ecc + 4 * c)) return booted() ? memory_ecc_[c] : fw_.ecc_invalid;
    return registers_.peek(offset);
}

void DeviceFirmware::inject_memory_ecc(unsigned channel, uint16_t corrected, uint16_t uncorrected) {
    const uint32_t word = memory_ecc_.at(channel);
    const uint32_t c = std::min<uint32_t>(0xffff, (word >> 16) + corrected);
    const uint32_t u = std::min<uint32_t>(0xffff, (word & 0xffff) + uncorrected);
    memory_ecc_[channel] = c << 16 | u;
}

bool DeviceFirmware::resetting() const {
    return reset_pending_ || sc_core::sc_time_stamp() < reset_done_at_;
}

uint32_t DeviceFirmware::status_word() const {
    const bool ready = booted() && !resetting();
    return ready == fw_.ready_when_set ? fw_.ready_mask : 0;
}

uint32_t DeviceFirmware::reset_word() {
    if (reset_pending_ && !reset_hang_ && sc_core::sc_time_stamp() >= reset_ack_at_) {
        // Acknowledge: the word is cleared and the reset itself runs until reset_done_at_.
        reset_pending_ = false;
        registers_.poke(misc(spec_.reset), 0);
    }
    return registers_.peek(misc(spec_.reset));
}

void DeviceFirmware::start_reset(uint32_t type) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    reset_pending_ = true;
    reset_type_ = type;
    ++resets_started_;
    reset_ack_at_ = now + seconds(fw_.reset_ack_time_s);
    reset_done_at_ = reset_ack_at_ + seconds(type == fw_.reset_device ? fw_.device_reset_time_s : fw_.core_reset_time_s);
    // A reset core's stochastic-rounding generator starts again from the seed its next program sets.
    const uint32_t core_map = registers_.peek(misc(spec_.reset_core_map));
    for (size_t c = 0; c < device_.cores().size(); ++c)
        if (type == fw_.reset_device || (c < 32 && (core_map >> c & 1u))) device_.cores()[c]->rounding_stream().restart();
}

void DeviceFirmware::on_doorbell() {
    if (!booted()) return;  // nobody listens yet
    const uint32_t reset = registers_.peek(misc(spec_.reset));
    if (reset == fw_.reset_device || reset == fw_.reset_cores) start_reset(reset);
    if (register_pair(spec_.request_hi, spec_.request_lo) != 0)
        mailbox_event_.notify(seconds(fw_.mailbox_service_time_s));
}

uint64_t DeviceFirmware::register_pair(uint32_t hi, uint32_t lo) const {
    return uint64_t(registers_.peek(misc(hi))) << 32 | registers_.peek(misc(lo));
}

bool DeviceFirmware::host_access(tlm::tlm_command command, uint64_t address, void* data, uint32_t length) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    return sim::blocking_access(host_port, command, address, data, length, delay);
}

void DeviceFirmware::serve_mailbox() {
    const uint64_t request_address = register_pair(spec_.request_hi, spec_.request_lo);
    const uint64_t response_address = register_pair(spec_.response_hi, spec_.response_lo);
    fwio::RequestHeader request;
    if (!host_access(tlm::TLM_READ_COMMAND, request_address, &request, sizeof request)) return;
    // A doorbell for something else (a reset) finds the last request already answered.
    if (request.seq == 0 || request.seq == last_served_seq_) return;
    std::vector<uint8_t> data(request.size);
    if (!data.empty() &&
        !host_access(tlm::TLM_READ_COMMAND, request_address + sizeof request, data.data(), uint32_t(data.size())))
        return;
    ++mailbox_requests_;
    last_served_seq_ = request.seq;

    fwio::ResponseHeader response;
    response.seq = request.seq;
    std::vector<uint8_t> payload;
    if (fwio::request_crc(request, data.data(), data.size()) != request.crc32) {
        response.error = uint8_t(fw_.error_fail);
    } else if (request.command == fw_.command_read) {
        std::vector<uint32_t> values;
        for (uint32_t offset : fwio::unpack_words(data.data(), data.size()))
            values.push_back(offset + 4 <= registers_.size() ? read_word(offset) : fw_.device_id_not_ready);
        payload = fwio::pack_words(values);
        response.error = uint8_t(fw_.error_success);
    } else if (request.command == fw_.command_post_metric) {
        response.error = uint8_t(fw_.error_success);
    } else {
        response.error = uint8_t(fw_.error_unknown_command);
    }
    response.size = uint16_t(payload.size());
    // The data first, the header (which carries the seq the host polls for) last.
    if (!payload.empty())
        host_access(tlm::TLM_WRITE_COMMAND, response_address + sizeof response, payload.data(), uint32_t(payload.size()));
    host_access(tlm::TLM_WRITE_COMMAND, response_address, &response, sizeof response);
}

}  // namespace nsim::firmware
