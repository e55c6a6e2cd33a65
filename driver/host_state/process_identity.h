// Who a process is, in a way that survives pid reuse: its pid plus its start time (from
// /proc/<pid>/stat), and its command line. A record naming a process that is gone, or whose pid now
// belongs to a newer process, is stale.
#pragma once

#include <cstdint>
#include <string>

#include "host_state_records.h"

namespace nsim::driver {

struct ProcessIdentity {
    int pid = 0;
    uint64_t start_time = 0;   // clock ticks since boot, field 22 of /proc/<pid>/stat
    std::string command;       // argv joined by spaces

    static ProcessIdentity self();
    bool alive() const;
    // Whether some process (not a zombie) has this pid, whoever it is.
    static bool pid_running(int pid);
    // Its entry in the host state, holding nothing yet.
    ProcessRecord record() const;
};

}  // namespace nsim::driver
