// The boxed table neuron-ls prints: '+---+' rules, a header of several lines centred in each column,
// cells left-aligned, one space of margin on each side, every column as wide as its widest text.
// Rows come in groups (a device and its processes); groups are separated by a rule when asked.
#pragma once

#include <string>
#include <vector>

namespace nsim::tools {

struct BoxTable {
    using Row = std::vector<std::string>;
    std::vector<std::vector<std::string>> header;  // per column, its header lines (top to bottom)
    std::vector<std::vector<Row>> groups;
    bool rule_between_groups = false;

    std::string render() const;
};

}  // namespace nsim::tools
