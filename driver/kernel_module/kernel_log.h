// The driver's printk: each message goes to the host state's kernel.log (what `dmesg` would show)
// with the simulated time, and is kept for the caller to quote in an error.
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
