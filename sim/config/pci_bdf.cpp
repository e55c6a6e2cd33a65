#include "config/pci_bdf.h"

#include <cctype>
#include <regex>

namespace nsim::config {

std::optional<std::string> canonical_pci_bdf(const std::string& text) {
    // Field widths are PCI's: 16-bit domain, 8-bit bus, 5-bit device, 3-bit function.
    static const std::regex pattern(
        "^(?:([0-9a-fA-F]{4}):)?([0-9a-fA-F]{2}):([0-1][0-9a-fA-F])\\.([0-7])$");
    std::smatch match;
    if (!std::regex_match(text, match, pattern)) return std::nullopt;
    std::string result;
    if (match[1].matched && match[1].str() != "0000") result = match[1].str() + ":";
    result += match[2].str() + ":" + match[3].str() + "." + match[4].str();
    for (char& c : result) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return result;
}

std::optional<std::string> long_pci_bdf(const std::string& text) {
    const auto canonical = canonical_pci_bdf(text);
    if (!canonical) return std::nullopt;
    // Short forms are bb:dd.f, 7 characters; the domain that went unsaid is 0000.
    return canonical->size() == 7 ? "0000:" + *canonical : *canonical;
}

}  // namespace nsim::config
