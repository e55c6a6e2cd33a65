#include "fwio_client.h"

#include <fmt/format.h>

#include "firmware/fwio_protocol.h"
#include "host_time.h"

namespace nsim::driver {

FwioClient::FwioClient(const MappedBar& bar0, const HostMemory& memory, const config::ChipSpec& chip,
                       unsigned device_index, uint64_t request_pa, uint64_t response_pa, const KernelLog& log)
    : bar0_(bar0), memory_(memory), map_(chip.registers), fw_(chip.firmware), drv_(chip.driver), device_(device_index),
      request_pa_(request_pa), response_pa_(response_pa), log_(log) {}

void FwioClient::setup() {
    // The device sees host memory at pci_host_base (driver.md 3: phys | pci_host_base).
    const uint64_t request_bus = map_.pci_host_base + request_pa_;
    const uint64_t response_bus = map_.pci_host_base + response_pa_;
    bar0_.write32(map_.misc_ram + map_.request_lo, uint32_t(request_bus));
    bar0_.write32(map_.misc_ram + map_.request_hi, uint32_t(request_bus >> 32));
    bar0_.write32(map_.misc_ram + map_.response_lo, uint32_t(response_bus));
    bar0_.write32(map_.misc_ram + map_.response_hi, uint32_t(response_bus >> 32));
}

FwioClient::Result FwioClient::read_registers(const std::vector<uint32_t>& bar0_offsets, bool fail) {
    Result result = execute(uint8_t(fw_.command_read), firmware::fwio::pack_words(bar0_offsets), fail);
    if (result.ok && result.words.size() != bar0_offsets.size()) {
        result.ok = false;
        result.message = fmt::format("nd{}: seq: {}, cmd: {} returned {} words for {} registers", device_, seq_,
                                     fw_.command_read, result.words.size(), bar0_offsets.size());
    }
    return result;
}

FwioClient::Result FwioClient::post_metric(const std::vector<uint8_t>& blob, bool fail) {
    return execute(uint8_t(fw_.command_post_metric), blob, fail);
}

FwioClient::Result FwioClient::execute(uint8_t command, const std::vector<uint8_t>& data, bool fail) {
    namespace fwio = firmware::fwio;
    Result result;
    const int polls = int(drv_.fwio_timeout_s / drv_.fwio_poll_interval_s + 0.5);
    for (uint32_t attempt = 0; attempt < drv_.fwio_retries; ++attempt) {
        seq_ = uint8_t(seq_ + 1) ? uint8_t(seq_ + 1) : 1;
        fwio::RequestHeader header;
        header.seq = seq_;
        header.command = command;
        header.size = uint16_t(data.size());
        header.crc32 = fwio::request_crc(header, data.data(), data.size());
        memory_.write(request_pa_, &header, sizeof header);
        if (!data.empty()) memory_.write(request_pa_ + sizeof header, data.data(), data.size());
        const fwio::ResponseHeader cleared;
        memory_.write(response_pa_, &cleared, sizeof cleared);
        if (!fail) bar0_.write32(map_.misc_ram + map_.doorbell, 1);

        fwio::ResponseHeader response;
        bool answered = false;
        for (int poll = 0; poll < polls && !answered; ++poll) {
            host_time::advance_s(drv_.fwio_poll_interval_s);
            memory_.read(response_pa_, &response, sizeof response);
            answered = response.seq == seq_;
        }
        if (!answered) {
            result.message = fmt::format("nd{}: seq: {}, cmd: {} timed out", device_, seq_, command);
            log_.print(result.message);
            continue;
        }
        result.error = response.error;
        if (response.error == fw_.error_success) {
            std::vector<uint8_t> payload(response.size);
            if (!payload.empty()) memory_.read(response_pa_ + sizeof response, payload.data(), payload.size());
            result.words = fwio::unpack_words(payload.data(), payload.size());
            result.ok = true;
            result.message.clear();
            return result;
        }
        result.message = fmt::format("nd{}: seq: {}, cmd: {} failed with error {}", device_, seq_, command, response.error);
        log_.print(result.message);
        if (response.error == fw_.error_unknown_command) return result;  // not retried (driver.md 6)
    }
    return result;
}

}  // namespace nsim::driver
