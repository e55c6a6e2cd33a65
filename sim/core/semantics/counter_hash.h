// The hash behind the core's counter-based random bits (stochastic rounding, dropout): splitmix64's
// finalizer. Every input bit affects every output bit, so consecutive counters give
// independent-looking words, and a generator needs no state beyond what it counts.
#pragma once

#include <cstdint>

namespace nsim::sim::core {

inline uint64_t counter_hash(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace nsim::sim::core
