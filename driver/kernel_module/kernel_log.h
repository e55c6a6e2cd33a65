// The driver's printk: each message goes to the host state's kernel.log (what `dmesg` would show),
// stamped by the host's kernel clock (host_state/kernel_clock.h).
#pragma once

#include <functional>
#include <string>

namespace nsim::driver {

class HostState;

class KernelLog {
public:
    explicit KernelLog(const HostState* state) : state_(state) {}
    void print(const std::string& message) const;

private:
    const HostState* state_;
};

}  // namespace nsim::driver
