// What neuron-top shows, in the layout of the real tool's 2.x screens (../shared/reference/tools.md
// section 2, trn1/trn2 transcriptions): title, "NeuronCore <version> Utilization" with a bar per core
// per device, "vCPU Utilization", "Memory Usage Summary", "Memory Usage Details" (a tree), and the
// "Neuron Apps" tab bar with key hints. The selected tab is all processes or one.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "neuron-ls/host_snapshot.h"
#include "neuron-top/cpu_usage.h"
#include "neuron-top/frame.h"

namespace nsim::tools {

struct TopView {
    int pid = 0;                          // the selected tab's process; 0 = the 'all' tab
    std::set<std::string> expanded;       // open tree nodes
    size_t selected_row = 0;              // in the tree's visible rows
    bool show_selection = true;
    bool flops = false;                   // the utilisation section in TFLOPS ('f') instead of percent
};

// What a process's tab shows: its NEURON_PROCESS_TAG, else its pid.
std::string process_tag(const HostSnapshot& host, int pid);

// Pids of the tabs after 'all', in tab order.
std::vector<int> tab_pids(const HostSnapshot& host);

Frame top_frame(const HostSnapshot& host, const TopView& view, const CpuUsage& cpu, size_t width);

// Shown instead when the driver is not loaded.
Frame no_device_frame(const HostSnapshot& host, const std::string& message, size_t width);

}  // namespace nsim::tools
