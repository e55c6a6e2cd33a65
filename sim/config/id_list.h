// Lists of small ids in Linux's cpulist form: "0-23,48-71" (ranges and single ids, comma-separated),
// as /sys/devices/system/node/nodeN/cpulist prints a NUMA node's CPUs and neuron-ls its CPU AFFINITY
// and NEURON CORE IDS.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nsim::config {

// The ids, ascending and distinct; nothing when the text is not such a list (or a range runs
// backwards, or an id repeats).
std::optional<std::vector<uint32_t>> parse_id_list(const std::string& text);

// Ascending distinct ids as that text: runs of consecutive ids become "first-last".
std::string format_id_list(const std::vector<uint32_t>& ids);

// The runs of consecutive ids in ascending ids, as {first, last} pairs.
std::vector<std::pair<uint32_t, uint32_t>> consecutive_runs(const std::vector<uint32_t>& ids);

}  // namespace nsim::config
