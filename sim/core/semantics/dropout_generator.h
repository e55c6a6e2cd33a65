// The Vector Engine's dropout generator (opcodes.def set_rng_seed, dropout): counter-based, so that
// a mask is a function of where it is drawn, not of what was drawn before. The backward regenerates
// the forward's mask by issuing the same dropout (same key, same rows) on the gradient, and no mask
// is stored. The hardware's generator is not published (hardware.md: set_rng_seed, rng, rand2 have
// no stated algorithm); this one is the documented formula below, which a reference can implement
// independently (kernels/reference/dropout_mask.h does):
//
//   h(x)      = splitmix64's finalizer (counter_hash.h)
//   stream    = h((seed << 32) | execution)                 64-bit; seed, execution from set_rng_seed
//   site      = h(stream ^ key)                             key: the instruction's 32-bit site key
//   bits      = h(site ^ ((row << 32) | element))           row = first_row + r (mod 2^32) for row r of
//                                                           the operand, element = e, its free index
//   keep      = (bits >> 40) >= floor(probability * 2^24)   a 24-bit uniform draw against p
//   dst       = keep ? src * float(1 / (1 - probability)) : 0    (fp32 multiply; p = 1 drops all)
#pragma once

#include <cstdint>

#include "core/semantics/counter_hash.h"

namespace nsim::sim::core {

class DropoutGenerator {
public:
    uint32_t seed() const { return seed_; }
    uint32_t execution() const { return execution_; }
    void set(uint32_t seed, uint32_t execution) {
        seed_ = seed;
        execution_ = execution;
    }
    // The hash of one instruction's site, from which each element's bits follow.
    uint64_t site(uint32_t key) const {
        return counter_hash(counter_hash((uint64_t(seed_) << 32) | execution_) ^ key);
    }
    static bool keeps(uint64_t site, uint32_t row, uint32_t element, uint32_t threshold) {
        return (counter_hash(site ^ ((uint64_t(row) << 32) | element)) >> 40) >= threshold;
    }
    static uint32_t threshold(float probability) { return uint32_t(double(probability) * 16777216.0); }

private:
    uint32_t seed_ = 0, execution_ = 0;
};

}  // namespace nsim::sim::core
