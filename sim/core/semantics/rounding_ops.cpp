// set_rounding (opcodes.def) and the core's rounding state (rounding_state.h).
#include <stdexcept>
#include <string>

#include "core/semantics/counter_hash.h"
#include "core/semantics/opcode_semantics.h"

namespace nsim::sim::core {

void RoundingState::set(uint32_t mode, uint32_t seed) {
    if (mode == NearestEven) {
        stochastic_ = false;
        return;
    }
    if (mode != Stochastic) throw std::invalid_argument("rounding mode " + std::to_string(mode) + " is not 0 or 1");
    stochastic_ = true;
    if (stream_->seeded && stream_->seed == seed) return;
    stream_->seeded = true;
    stream_->seed = seed;
    stream_->writes = 0;
}

std::vector<uint32_t> RoundingState::next_write_bits(size_t count) {
    const uint64_t stream = counter_hash((uint64_t(stream_->seed) << 32) ^ counter_hash(stream_->writes++));
    std::vector<uint32_t> bits(count);
    for (size_t i = 0; i < count; ++i) bits[i] = uint32_t(counter_hash(stream + i) >> 32);
    return bits;
}

void execute_SetRounding(const isa::Instruction& inst, const MemorySpaces& spaces) {
    if (!spaces.rounding) throw SemanticsError("the core has no rounding state");
    spaces.rounding->set(inst.u32(isa::fields::SetRounding::mode), inst.u32(isa::fields::SetRounding::seed));
}

}  // namespace nsim::sim::core
