// set_rounding (opcodes.def) and the core's rounding state (rounding_state.h).
#include <stdexcept>
#include <string>

#include "core/semantics/opcode_semantics.h"

namespace nsim::sim::core {
namespace {

// splitmix64's finalizer: every input bit affects every output bit, so consecutive counters give
// independent-looking words.
uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace

void RoundingState::set(uint32_t mode, uint32_t seed) {
    if (mode == NearestEven) {
        stochastic_ = false;
        return;
    }
    if (mode != Stochastic) throw std::invalid_argument("rounding mode " + std::to_string(mode) + " is not 0 or 1");
    if (stochastic_ && seed_ == seed) return;
    stochastic_ = true;
    seed_ = seed;
    writes_ = 0;
}

std::vector<uint32_t> RoundingState::next_write_bits(size_t count) {
    const uint64_t stream = mix((uint64_t(seed_) << 32) ^ mix(writes_++));
    std::vector<uint32_t> bits(count);
    for (size_t i = 0; i < count; ++i) bits[i] = uint32_t(mix(stream + i) >> 32);
    return bits;
}

void execute_SetRounding(const isa::Instruction& inst, const MemorySpaces& spaces) {
    if (!spaces.rounding) throw SemanticsError("the core has no rounding state");
    spaces.rounding->set(inst.u32(isa::fields::SetRounding::mode), inst.u32(isa::fields::SetRounding::seed));
}

}  // namespace nsim::sim::core
