// The driver's reset worker (driver.md 5): for each device with a pending request, write the core map
// (TPB reset) and reset type into MISC RAM, ring the doorbell, poll the reset word until firmware
// clears it (re-issuing the request every reissue interval, giving up after the maximum wait), then
// poll the firmware status until the ready bit says the reset is over (a few tries with growing
// sleeps). Every device's worker runs at once in simulated time, as the per-device kthreads do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bus_access.h"
#include "config/host_spec.h"
#include "kernel_log.h"

namespace nsim::driver {

struct ResetRequest {
    unsigned device = 0;
    const MappedBar* bar0 = nullptr;
    bool whole_device = true;
    uint32_t core_map = 0;        // TPB reset: bit i = core i
    uint32_t request_id = 0;      // the requester's pid, or the driver's "all" id

    // Results.
    bool ok = false;
    std::string message;          // the driver's words when it failed
    double seconds = 0;           // simulated time the reset took
    uint32_t issues = 0;          // times the request was written (1 + re-issues)
};

// Runs every request to completion or failure; logs as the driver does.
void run_resets(std::vector<ResetRequest>& requests, const config::ChipSpec& chip, const KernelLog& log);

}  // namespace nsim::driver
