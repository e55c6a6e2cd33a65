// What `neuron-sim info` shows: the elaborated machine as JSON (for scripts) and as text (for people).
// Both are read off the elaborated modules, not off the config, so they show what was built.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/platform.h"

namespace nsim::sim {

nlohmann::json describe_platform(const Platform& platform);
std::string format_platform(const nlohmann::json& description);
// "8 GiB", "192 KiB", "1.5 TiB": sizes as people read them.
std::string format_bytes(uint64_t bytes);
// "50.0 GiB/s"
std::string format_rate(double bytes_per_s);

}  // namespace nsim::sim
