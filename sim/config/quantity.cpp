#include "config/quantity.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace nsim::config {
namespace {

using UnitTable = std::vector<std::pair<std::string, double>>;

// Binary prefixes for capacities (as the hardware documents write GiB) and decimal ones for
// vendors' GB/TB; both are accepted and mean what they say.
const UnitTable& byte_units() {
    static const UnitTable units = {
        {"B", 1.0},
        {"KiB", 1024.0}, {"MiB", 1024.0 * 1024}, {"GiB", 1024.0 * 1024 * 1024},
        {"TiB", 1024.0 * 1024 * 1024 * 1024},
        {"KB", 1e3}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
    };
    return units;
}

UnitTable rate_units() {
    UnitTable units;
    for (const auto& [name, factor] : byte_units()) units.emplace_back(name + "/s", factor);
    return units;
}

const UnitTable& units_of(Quantity kind) {
    static const UnitTable rates = rate_units();
    static const UnitTable hertz = {{"Hz", 1.0}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
    static const UnitTable seconds = {
        {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}};
    // Integer matmul rates are quoted in OPS, floating ones in FLOPS; both are operations/second.
    static const UnitTable flops = {
        {"FLOPS", 1.0}, {"GFLOPS", 1e9}, {"TFLOPS", 1e12}, {"PFLOPS", 1e15},
        {"OPS", 1.0},   {"GOPS", 1e9},   {"TOPS", 1e12},   {"POPS", 1e15},
    };
    switch (kind) {
        case Quantity::bytes: return byte_units();
        case Quantity::bytes_per_second: return rates;
        case Quantity::hertz: return hertz;
        case Quantity::seconds: return seconds;
        case Quantity::flops: return flops;
    }
    return byte_units();
}

}  // namespace

std::string quantity_description(Quantity kind) {
    switch (kind) {
        case Quantity::bytes: return "a byte size such as 4GiB";
        case Quantity::bytes_per_second: return "a bandwidth such as 100GB/s";
        case Quantity::hertz: return "a frequency such as 1GHz";
        case Quantity::seconds: return "a duration such as 500ns";
        case Quantity::flops: return "a throughput such as 10TFLOPS";
    }
    return "a number";
}

std::optional<double> parse_quantity(const std::string& text, Quantity kind) {
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
        return std::nullopt;  // also rejects signs: no hardware quantity is negative
    const char* begin = text.c_str();
    char* end = nullptr;
    const double number = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(number)) return std::nullopt;
    std::string unit(end);
    while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
    if (unit.empty()) return number;
    for (const auto& [name, factor] : units_of(kind))
        if (unit == name) return number * factor;
    return std::nullopt;
}

}  // namespace nsim::config
