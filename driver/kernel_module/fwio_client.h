// The host end of the FWIO mailbox (driver.md 6): request and response buffers in host memory whose
// bus addresses sit in MISC RAM, seq bumped per attempt (never 0), CRC-32C over the request, the
// doorbell, then polling response.seq every poll interval up to the timeout, retried.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bus_access.h"
#include "config/host_spec.h"
#include "kernel_log.h"

namespace nsim::driver {

class FwioClient {
public:
    FwioClient(const MappedBar& bar0, const HostMemory& memory, const config::ChipSpec& chip, unsigned device_index,
               uint64_t request_pa, uint64_t response_pa, const KernelLog& log);

    // Points the firmware at the buffers (fw_io_setup).
    void setup();

    struct Result {
        bool ok = false;
        uint8_t error = 0;               // the firmware's error code when it answered
        std::vector<uint32_t> words;     // READ: the values, in request order
        std::string message;             // why it failed, the driver's words
    };
    // FW_IO_CMD_READ of BAR0 offsets. `fail` (fault injection) makes every attempt go unanswered.
    Result read_registers(const std::vector<uint32_t>& bar0_offsets, bool fail = false);
    Result post_metric(const std::vector<uint8_t>& blob, bool fail = false);

    uint8_t last_seq() const { return seq_; }

private:
    Result execute(uint8_t command, const std::vector<uint8_t>& data, bool fail);

    MappedBar bar0_;
    const HostMemory& memory_;
    const config::RegisterMapSpec map_;
    const config::FirmwareSpec fw_;
    const config::DriverSpec drv_;
    unsigned device_;
    uint64_t request_pa_, response_pa_;
    const KernelLog& log_;
    uint8_t seq_ = 0;
};

}  // namespace nsim::driver
