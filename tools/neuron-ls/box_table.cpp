#include "neuron-ls/box_table.h"

#include <algorithm>

namespace nsim::tools {

std::string BoxTable::render() const {
    const size_t columns = header.size();
    std::vector<size_t> width(columns, 0);
    size_t header_lines = 0;
    for (size_t c = 0; c < columns; ++c) {
        header_lines = std::max(header_lines, header[c].size());
        for (const std::string& text : header[c]) width[c] = std::max(width[c], text.size());
    }
    for (const auto& group : groups)
        for (const Row& row : group)
            for (size_t c = 0; c < columns && c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());

    std::string rule = "+";
    for (size_t w : width) rule += std::string(w + 2, '-') + "+";
    rule += "\n";

    std::string out = rule;
    for (size_t line = 0; line < header_lines; ++line) {
        out += "|";
        for (size_t c = 0; c < columns; ++c) {
            const std::string text = line < header[c].size() ? header[c][line] : "";
            // Centred; an odd leftover space goes to the right, as the real tool does.
            const size_t left = (width[c] - text.size()) / 2;
            out += " " + std::string(left, ' ') + text + std::string(width[c] - text.size() - left, ' ') + " |";
        }
        out += "\n";
    }
    out += rule;
    for (size_t g = 0; g < groups.size(); ++g) {
        if (g > 0 && rule_between_groups) out += rule;
        for (const Row& row : groups[g]) {
            out += "|";
            for (size_t c = 0; c < columns; ++c) {
                const std::string text = c < row.size() ? row[c] : "";
                out += " " + text + std::string(width[c] - text.size(), ' ') + " |";
            }
            out += "\n";
        }
    }
    out += rule;
    return out;
}

}  // namespace nsim::tools
