// The clock of the simulated host's kernel log (what dmesg stamps lines with): seconds since the host
// booted - since its state directory was first used - monotonic over every process that uses the
// host. Each process simulates its own time from 0, so a stamp is the later of the wall-clock uptime
// and the host's last stamp, plus the simulated time this process spent since its previous stamp: a
// modprobe's seconds of firmware waits show in its lines, and the next command's lines follow them.
#pragma once

#include <string>

namespace nsim::driver {

class HostState;

// "[    12.345678] neuron: <message>", stamped now. `simulated_now_s`: this process's simulated time
// (negative when the caller has none, e.g. a viewer reaping a dead process).
std::string kernel_log_line(const HostState& state, const std::string& message, double simulated_now_s = -1);

}  // namespace nsim::driver
