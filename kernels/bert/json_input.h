// Parsing the JSON of a file the user gave (config.json, a safetensors header, a weights index):
// every nlohmann exception - parse_error, and out_of_range for a number past double's range such as
// 30e523 (found by the checkpoint fuzzer) - becomes one InputError line naming the file. One place,
// so a new kind of JSON failure is caught for every reader at once.
#pragma once

#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/input_error.h"

namespace nsim::kernels {

// `text` parsed, or InputError "<source>: <what> (<nlohmann's reason>)"; `what` says what the
// reader expected, e.g. "not valid JSON".
inline nlohmann::json parse_json_or_input_error(std::string_view text, std::string_view source, std::string_view what) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(fmt::format("{}: {} ({})", source, what, e.what()));
    }
}

}  // namespace nsim::kernels
