#include "kernel_log.h"

#include <fmt/format.h>

#include "host_state.h"
#include "kernel_clock.h"
#include "host_time.h"

namespace nsim::driver {

void KernelLog::print(const std::string& message) const {
    if (state_) state_->append_kernel_log(kernel_log_line(*state_, message, host_time::now_s()));
}

}  // namespace nsim::driver
