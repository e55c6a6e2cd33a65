#include "neuron-ls/instance_id.h"

#include <cstdint>

#include <fmt/format.h>

namespace nsim::tools {

std::string simulated_instance_id(const std::filesystem::path& home, const std::string& instance) {
    std::error_code ignored;
    const std::filesystem::path absolute = std::filesystem::weakly_canonical(home, ignored);
    const std::string key = (absolute.empty() ? home : absolute).string() + "\n" + instance;
    // FNV-1a: any stable spread of the key will do; this one is short and needs no library.
    uint64_t hash = 0xcbf29ce484222325ull;
    for (unsigned char c : key) hash = (hash ^ c) * 0x100000001b3ull;
    // 64 bits give 16 hex digits; real ids have 17 and often start with 0.
    return fmt::format("i-0{:016x}", hash);
}

}  // namespace nsim::tools
