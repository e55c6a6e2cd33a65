#include "kernel_clock.h"

#include <algorithm>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "activity_publisher.h"
#include "host_state.h"

namespace nsim::driver {
namespace {

double read_number(const std::filesystem::path& file, double fallback) {
    std::ifstream in(file);
    double value = fallback;
    if (in >> value) return value;
    return fallback;
}

}  // namespace

std::string kernel_log_line(const HostState& state, const std::string& message, double simulated_now_s) {
    // This process's simulated time at its previous stamp, per host.
    static std::map<std::string, double> previous_simulated;
    const HostState::Lock lock = state.lock();
    const double wall = wall_clock_now_s();
    const auto boot_file = state.dir() / "boot_time";
    double boot = read_number(boot_file, -1);
    if (boot < 0) {
        boot = wall;
        state.write_file("boot_time", fmt::format("{:.6f}\n", boot));
    }
    const double last = read_number(state.dir() / "kernel_clock", 0);
    double stamp = std::max(wall - boot, last);
    const std::string key = state.dir().string();
    if (simulated_now_s >= 0) {
        const auto it = previous_simulated.find(key);
        if (it != previous_simulated.end() && simulated_now_s > it->second) stamp += simulated_now_s - it->second;
        previous_simulated[key] = simulated_now_s;
    }
    stamp = std::max(stamp, last + 1e-6);   // strictly after the previous line
    state.write_file("kernel_clock", fmt::format("{:.6f}\n", stamp));
    return fmt::format("[{:12.6f}] neuron: {}", stamp, message);
}

}  // namespace nsim::driver
