// neuron-top's "Memory Usage Details": device memory as a tree, ND n -> NC m -> the models loaded
// there, plus each device's memory no model accounts for. A node's amount is the sum of its
// children's; nodes open and close by key, so the view keeps its shape while the data changes.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "neuron-ls/host_snapshot.h"

namespace nsim::tools {

struct TreeRow {
    std::string key;           // "nd0", "nd0/nc1"; empty for leaves
    unsigned depth = 0;
    bool expandable = false;
    bool expanded = false;
    std::string label;
    std::string model_id;
    uint64_t device_bytes = 0;
};

// The visible rows for the processes of `pid` (0: all). `expanded` holds the keys of open nodes.
std::vector<TreeRow> memory_tree(const HostSnapshot& host, int pid, const std::set<std::string>& expanded);

// Every key that can be opened, to open the whole tree at once.
std::set<std::string> all_tree_keys(const HostSnapshot& host);

}  // namespace nsim::tools
