// Fault injection modelled on the real driver's debugfs fault attributes (driver.md 3: neuron/
// fail_nc_mmap, fail_dma_wait, fail_mc_alloc, fail_fwio_read, fail_fwio_post_metric) plus one
// hardware fault, a firmware that never acknowledges a reset. Each switch is a file
// debugfs/neuron/<name> in the host state holding the Linux fault-attr "times" value: 0 off, N fail
// the next N times, -1 fail every time. Switches persist between commands, so a user can arm one with
// `neuron-sim fault set NAME N` and see the next run fail. As on a real host, the driver's own
// switches live in the module's debugfs: rmmod removes them (they read 0 afterwards), so a switch
// meant for modprobe is armed after rmmod, while the module is unloaded. firmware_hang is the
// hardware's and survives a reload.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host_state.h"

namespace nsim::driver {

enum class Fault { FailNcMmap, FailDmaWait, FailMcAlloc, FailFwioRead, FailFwioPostMetric, FirmwareHang };

struct FaultInfo {
    Fault fault;
    const char* name;     // the debugfs file name
    const char* effect;   // what arming it does, for `neuron-sim fault list`
    bool driver = true;   // a debugfs attribute of the module (cleared by rmmod), not a hardware fault
};

const std::vector<FaultInfo>& all_faults();
const char* name_of(Fault fault);
std::optional<Fault> fault_from_name(const std::string& name);

class FaultSwitches {
public:
    explicit FaultSwitches(const HostState& state) : state_(state) {}

    int64_t value(Fault fault) const { return state_.read_fault(name_of(fault)); }
    void set(Fault fault, int64_t times) const { state_.write_fault(name_of(fault), times); }
    bool armed(Fault fault) const { return value(fault) != 0; }
    // Whether this use fails; consumes one of a positive count.
    bool should_fail(Fault fault) const;

private:
    const HostState& state_;
};

}  // namespace nsim::driver
