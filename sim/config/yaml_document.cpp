#include "config/yaml_document.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "config/config_set.h"
#include "isa/bounded_file.h"

namespace nsim::config {
namespace {

// The shipped chip files are about 30 KB; a config a hundred times that is not a hand-written one.
constexpr uint64_t kMaxConfigFileBytes = uint64_t(4) << 20;

// The dotted path of block-map keys that enclose `line` (1-based), read from indentation. A
// syntax error leaves no parse tree to ask, and a user wants to know where to look.
std::string enclosing_key(const std::string& text, int line) {
    std::vector<std::pair<std::size_t, std::string>> open;  // (indent, key)
    std::istringstream lines(text);
    std::string current;
    for (int number = 1; number <= line && std::getline(lines, current); ++number) {
        const std::size_t indent = current.find_first_not_of(" \t");
        if (indent == std::string::npos || current[indent] == '#') continue;
        std::size_t start = indent;
        while (current.compare(start, 2, "- ") == 0) start += 2;
        // YAML forbids tab indentation, so its depth means nothing; an editor that slipped in a
        // tab most likely meant the previous key's level.
        const bool tab_indented = current.find('\t') < indent;
        const std::size_t level = tab_indented && !open.empty() ? open.back().first : start;
        const std::size_t colon = current.find(':', start);
        const std::size_t comment = current.find(" #", start);
        const bool is_key = colon != std::string::npos && colon > start &&
                            (comment == std::string::npos || colon < comment) &&
                            (colon + 1 == current.size() || current[colon + 1] == ' ') &&
                            current.find_first_of("\"'{[", start) > colon;
        while (!open.empty() && open.back().first >= level) open.pop_back();
        if (is_key) open.emplace_back(level, current.substr(start, colon - start));
    }
    std::string key;
    for (const auto& [indent, name] : open) key += (key.empty() ? "" : ".") + name;
    return key;
}

// Line `line` (1-based) of `text`.
std::string line_at(const std::string& text, int line) {
    std::istringstream lines(text);
    std::string current;
    for (int number = 1; number <= line && std::getline(lines, current); ++number) {
    }
    return current;
}

std::string lower_first(std::string text) {
    if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') text[0] = char(text[0] - 'A' + 'a');
    return text;
}

}  // namespace

ConfigNode load_yaml_document(const std::filesystem::path& file) {
    const std::string name = file.string();
    std::string text;
    try {
        text = isa::read_bounded_text(file, kMaxConfigFileBytes, "YAML config file");
    } catch (const isa::FileError& e) {
        throw ConfigError(e.what());
    }
    try {
        return ConfigNode(YAML::Load(text), name);
    } catch (const YAML::Exception& error) {
        // yaml-cpp places "not found" errors at end of input, one past the last line.
        const int last_line = std::max(1, int(std::count(text.begin(), text.end(), '\n')));
        const int line = error.mark.is_null() ? 1 : std::min(error.mark.line + 1, last_line);
        const std::string key = enclosing_key(text, line);
        std::string problem = "YAML syntax error: " + lower_first(error.msg);
        // yaml-cpp reports a tab as "illegal map value" or similar; the cause is worth naming.
        const std::string source_line = line_at(text, line);
        if (source_line.find('\t') < source_line.find_first_not_of(" \t") &&
            problem.find("tab") == std::string::npos)
            problem += " (YAML does not allow tabs for indentation)";
        if (key.empty()) throw ConfigError(fmt::format("{}:{}: {}", name, line, problem));
        throw ConfigError(fmt::format("{}:{}: key '{}': {}", name, line, key, problem));
    }
}

}  // namespace nsim::config
