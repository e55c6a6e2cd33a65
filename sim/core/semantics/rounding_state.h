// How a core's engines round fp32 results into bf16, fp16 and fp8: to nearest even (the default), or
// stochastically (training.md A2.4), switched by the program's set_rounding instructions.
//
// Stochastic rounding rounds up with a probability equal to the fraction of an output ulp the value
// lies above the lower neighbour, so a sum of many small increments keeps its expected value where
// nearest-even rounding would drop every one of them. The random bits are a counter-based hash of
// (seed, write number, element index): no generator state beyond the count of narrow writes, so a run
// is reproducible from its seed, and the same program with the same seed gives the same bits. The
// write count follows the order the engines execute the core's writes in, which the simulation fixes.
// The hardware's generator is not published (training.md A2.4), nor is whether SR costs time: none
// is charged (set_rounding is a control instruction).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nsim::sim::core {

class RoundingState {
public:
    enum Mode : uint32_t { NearestEven = 0, Stochastic = 1 };

    bool stochastic() const { return stochastic_; }
    uint32_t seed() const { return seed_; }
    // Mode and seed of set_rounding. Repeating the current setting changes nothing (every queue of a
    // core starts with the same instruction); a new seed restarts the sequence. Throws
    // std::invalid_argument for a mode other than NearestEven or Stochastic.
    void set(uint32_t mode, uint32_t seed);
    // Uniform random words for the `count` elements of the next narrow write.
    std::vector<uint32_t> next_write_bits(size_t count);

private:
    bool stochastic_ = false;
    uint32_t seed_ = 0;
    uint64_t writes_ = 0;
};

}  // namespace nsim::sim::core
