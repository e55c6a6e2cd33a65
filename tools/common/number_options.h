// The range check of every tool's numeric options. CLI11's Range runs before the option's own
// conversion and answers "Value abc not in range 1 to 1000000" for text that is no number at all, and
// lets NaN through (every comparison with it is false); this says what is wrong with the text first,
// then leaves the range to CLI::Range, so an out-of-range number reads as before.
#pragma once

#include <cmath>
#include <string>
#include <type_traits>

#include <CLI/CLI.hpp>

namespace nsim::tools {

template <typename T>
CLI::Validator in_range(T min, T max) {
    const CLI::Range range(min, max);
    return CLI::Validator(
        [range, min, max](std::string& text) {
            double value = 0;
            if (!CLI::detail::lexical_cast(text, value)) return text + " is not a number";
            if (!std::isfinite(value)) return text + " is not a finite number";
            if (std::is_integral_v<T> && value != std::floor(value)) return text + " is not a whole number";
            // Here too, in Range's words: its conversion to an unsigned type wraps "-1" round to the largest value.
            if (value < double(min) || value > double(max))
                return "Value " + text + " not in range " + std::to_string(min) + " to " + std::to_string(max);
            return range(text);
        },
        range.get_description());
}

}  // namespace nsim::tools
