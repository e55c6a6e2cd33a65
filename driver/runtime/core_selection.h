// Which NeuronCores a runtime asks for: NEURON_RT_VISIBLE_CORES ("2", "0-3", "0,2-3") or
// NEURON_RT_NUM_CORES (a count, 0 = all), in logical NeuronCores numbered across the instance.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nsim::runtime {

struct CoreRequest {
    std::vector<uint32_t> visible;    // explicit cores, ascending; empty: none named
    uint32_t count = 0;               // when no cores are named: how many (0 = all)
};

// Throws std::invalid_argument with a one-line message naming the variable.
CoreRequest parse_core_request(const std::optional<std::string>& visible_cores, const std::optional<std::string>& num_cores,
                               uint32_t total_cores);

// "nc1-nc1", "nc0-nc3", "nc0-nc1,nc3-nc3": the runtime's way of writing a core set.
std::string describe_cores(const std::vector<uint32_t>& cores);

}  // namespace nsim::runtime
