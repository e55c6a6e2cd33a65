// How a core's engines round fp32 results into bf16, fp16 and fp8: to nearest even (the default), or
// stochastically (training.md A2.4), switched by the program's set_rounding instructions.
//
// Stochastic rounding rounds up with a probability equal to the fraction of an output ulp the value
// lies above the lower neighbour, so a sum of many small increments keeps its expected value where
// nearest-even rounding would drop every one of them. The random bits are a counter-based hash of
// (seed, write number, element index): no generator state beyond the count of narrow writes, so a run
// is reproducible from its seed, and the same program with the same seed gives the same bits. The
// write count follows the order the engines execute the core's writes in, which the simulation fixes.
// The seed and count live with the physical core (sim::RoundingStream) and continue from one
// execution to the next, as the hardware's generator does; the mode is the execution's own (each
// starts at nearest even until its set_rounding), so a program without it never rounds stochastically.
// The hardware's generator is not published (training.md A2.4), nor is whether SR costs time: none
// is charged (set_rounding is a control instruction).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "platform/rounding_stream.h"

namespace nsim::sim::core {

class RoundingState {
public:
    enum Mode : uint32_t { NearestEven = 0, Stochastic = 1 };

    // The stream it continues: a physical core's (kept by the platform, outliving this state), or
    // (null) a stream of its own that starts with it.
    explicit RoundingState(RoundingStream* stream = nullptr) : stream_(stream ? stream : &own_) {}
    RoundingState(const RoundingState&) = delete;
    RoundingState& operator=(const RoundingState&) = delete;

    bool stochastic() const { return stochastic_; }
    uint32_t seed() const { return stream_->seed; }
    uint64_t writes() const { return stream_->writes; }
    // Mode and seed of set_rounding. The stream's current seed again continues the stream (every
    // queue of a core starts with the same instruction, and every execution of a program); another
    // seed restarts it. Throws std::invalid_argument for a mode other than NearestEven or Stochastic.
    void set(uint32_t mode, uint32_t seed);
    // Uniform random words for the `count` elements of the next narrow write.
    std::vector<uint32_t> next_write_bits(size_t count);

private:
    bool stochastic_ = false;
    RoundingStream own_;
    RoundingStream* stream_;
};

}  // namespace nsim::sim::core
