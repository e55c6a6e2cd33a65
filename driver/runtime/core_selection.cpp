#include "core_selection.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "config/id_list.h"

namespace nsim::runtime {
namespace {

bool is_number(const std::string& text) {
    return !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
}

uint32_t parse_core_number(const std::string& text, const std::string& whole) {
    if (!is_number(text))
        throw std::invalid_argument(fmt::format("NEURON_RT_VISIBLE_CORES='{}' is not a core number, range or list (e.g. 0-3)", whole));
    return uint32_t(std::stoul(text));
}

}  // namespace

CoreRequest parse_core_request(const std::optional<std::string>& visible_cores, const std::optional<std::string>& num_cores,
                               uint32_t total_cores) {
    CoreRequest request;
    if (visible_cores && !visible_cores->empty()) {
        const std::string& text = *visible_cores;
        size_t start = 0;
        while (start <= text.size()) {
            const size_t comma = std::min(text.find(',', start), text.size());
            const std::string item = text.substr(start, comma - start);
            const size_t dash = item.find('-');
            const uint32_t first = parse_core_number(item.substr(0, dash), text);
            const uint32_t last = dash == std::string::npos ? first : parse_core_number(item.substr(dash + 1), text);
            if (last < first)
                throw std::invalid_argument(fmt::format("NEURON_RT_VISIBLE_CORES='{}': range {} ends before it starts", text, item));
            if (last >= total_cores)
                throw std::invalid_argument(fmt::format("NEURON_RT_VISIBLE_CORES='{}' names nc{}, but the instance has {} "
                                                        "NeuronCores (nc0-nc{})", text, last, total_cores, total_cores - 1));
            for (uint32_t c = first; c <= last; ++c) request.visible.push_back(c);
            start = comma + 1;
        }
        std::sort(request.visible.begin(), request.visible.end());
        request.visible.erase(std::unique(request.visible.begin(), request.visible.end()), request.visible.end());
        return request;
    }
    if (num_cores && !num_cores->empty()) {
        if (!is_number(*num_cores))
            throw std::invalid_argument(fmt::format("NEURON_RT_NUM_CORES='{}' is not a number of NeuronCores", *num_cores));
        request.count = uint32_t(std::stoul(*num_cores));
        if (request.count > total_cores)
            throw std::invalid_argument(fmt::format("NEURON_RT_NUM_CORES={} exceeds the instance's {} NeuronCores",
                                                    request.count, total_cores));
    }
    return request;
}

std::string describe_cores(const std::vector<uint32_t>& cores) {
    std::string text;
    for (const auto& [first, last] : config::consecutive_runs(cores))
        text += fmt::format("{}nc{}-nc{}", text.empty() ? "" : ",", first, last);
    return text;
}

}  // namespace nsim::runtime
