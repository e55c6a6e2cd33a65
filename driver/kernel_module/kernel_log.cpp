#include "kernel_log.h"

#include <fmt/format.h>

#include "host_state.h"
#include "host_time.h"

namespace nsim::driver {

void KernelLog::print(const std::string& message) const {
    if (state_) state_->append_kernel_log(fmt::format("[{:12.6f}] neuron: {}", host_time::now_s(), message));
}

}  // namespace nsim::driver
