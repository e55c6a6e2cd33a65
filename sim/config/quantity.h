// Numbers with units in configs/, e.g. "4GiB", "100GB/s", "1GHz", "500ns", "10TFLOPS".
// A plain number is taken in the base unit (bytes, bytes/s, Hz, seconds, FLOP/s).
#pragma once

#include <optional>
#include <string>

namespace nsim::config {

enum class Quantity { bytes, bytes_per_second, hertz, seconds, flops };

// What a value of this kind looks like, for error messages: "a byte size such as 16GiB".
std::string quantity_description(Quantity kind);

// The value in base units, or nothing if the text is not a non-negative number with a unit of
// this kind.
std::optional<double> parse_quantity(const std::string& text, Quantity kind);

}  // namespace nsim::config
