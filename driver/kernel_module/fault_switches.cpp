#include "fault_switches.h"

namespace nsim::driver {

const std::vector<FaultInfo>& all_faults() {
    static const std::vector<FaultInfo> faults = {
        {Fault::FailNcMmap, "fail_nc_mmap", "mapping a NeuronCore's notification queue fails (an execution cannot start)"},
        {Fault::FailDmaWait, "fail_dma_wait", "the driver's wait for a DMA completion marker fails (copy times out)"},
        {Fault::FailMcAlloc, "fail_mc_alloc", "device memory allocation fails (out of memory)"},
        {Fault::FailFwioRead, "fail_fwio_read", "firmware mailbox reads fail (request timed out); probe leaves the device INVALID"},
        {Fault::FailFwioPostMetric, "fail_fwio_post_metric", "posting the runtime's metrics to the firmware fails (nrt_init goes on)"},
        {Fault::FirmwareHang, "firmware_hang", "device firmware never acknowledges a reset; the device goes INVALID (hardware: "
                                               "survives rmmod)", false},
    };
    return faults;
}

const char* name_of(Fault fault) {
    for (const auto& info : all_faults())
        if (info.fault == fault) return info.name;
    return "?";
}

std::optional<Fault> fault_from_name(const std::string& name) {
    for (const auto& info : all_faults())
        if (name == info.name) return info.fault;
    return std::nullopt;
}

bool FaultSwitches::should_fail(Fault fault) const {
    HostState::Lock lock = state_.lock();
    const int64_t times = value(fault);
    if (times == 0) return false;
    if (times > 0) set(fault, times - 1);
    return true;
}

}  // namespace nsim::driver
