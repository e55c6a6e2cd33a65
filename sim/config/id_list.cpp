#include "config/id_list.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

namespace nsim::config {

std::optional<std::vector<uint32_t>> parse_id_list(const std::string& text) {
    static const std::regex item("^([0-9]{1,6})(?:-([0-9]{1,6}))?$");
    std::vector<uint32_t> ids;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string part = text.substr(start, comma - start);
        std::smatch match;
        if (!std::regex_match(part, match, item)) return std::nullopt;
        const uint32_t first = uint32_t(std::stoul(match[1].str()));
        const uint32_t last = match[2].matched ? uint32_t(std::stoul(match[2].str())) : first;
        if (last < first) return std::nullopt;
        for (uint32_t id = first; id <= last; ++id) ids.push_back(id);
        start = comma + 1;
    }
    std::sort(ids.begin(), ids.end());
    if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) return std::nullopt;
    return ids;
}

std::vector<std::pair<uint32_t, uint32_t>> consecutive_runs(const std::vector<uint32_t>& ids) {
    std::vector<std::pair<uint32_t, uint32_t>> runs;
    for (uint32_t id : ids) {
        if (!runs.empty() && id == runs.back().second + 1) runs.back().second = id;
        else runs.push_back({id, id});
    }
    return runs;
}

std::string format_id_list(const std::vector<uint32_t>& ids) {
    std::string text;
    for (const auto& [first, last] : consecutive_runs(ids))
        text += (text.empty() ? "" : ",") + (first == last ? std::to_string(first) : fmt::format("{}-{}", first, last));
    return text;
}

}  // namespace nsim::config
