// set_rng_seed and dropout (opcodes.def): the core's dropout generator (dropout_generator.h).
#include <cstring>
#include <string>

#include "core/semantics/operand_bytes.h"
#include "core/semantics/opcode_semantics.h"

namespace nsim::sim::core {

void execute_SetRngSeed(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::SetRngSeed;
    if (!spaces.dropout) throw SemanticsError("the core has no dropout generator");
    const isa::AccessPattern& state = inst.ap(F::state);
    if (state.dtype != isa::DType::Int32) fail_operand(inst, F::state, "is not int32");
    require_elements(inst, F::state, 2, "seed and execution");
    OperandBytes bytes;
    try {
        bytes = gather_bytes(state, spaces);
    } catch (const SemanticsError& e) {
        fail_operand(inst, F::state, e.what());
    }
    uint32_t words[2];
    std::memcpy(words, bytes.data(), sizeof(words));
    spaces.dropout->set(words[0], words[1]);
}

void execute_Dropout(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::Dropout;
    if (!spaces.dropout) throw SemanticsError("the core has no dropout generator");
    Tile x = read_operand(inst, F::src, spaces);
    require_elements(inst, F::dst, x.values.size(), "one per source element");
    const float p = inst.f32(F::probability);
    if (!(p >= 0.0f && p <= 1.0f)) throw SemanticsError("dropout probability " + std::to_string(p) + " is outside [0, 1]");
    const uint32_t threshold = DropoutGenerator::threshold(p);
    const float scale = p < 1.0f ? float(1.0 / (1.0 - double(p))) : 0.0f;
    const uint64_t site = spaces.dropout->site(inst.u32(F::key));
    const uint32_t first_row = inst.u32(F::first_row);
    for (uint32_t r = 0; r < x.partitions; ++r) {
        float* row = &x.values[r * x.free];
        for (uint64_t e = 0; e < x.free; ++e)
            row[e] = DropoutGenerator::keeps(site, first_row + r, uint32_t(e), threshold) ? row[e] * scale : 0.0f;
    }
    write_operand(inst, F::dst, x, spaces);
}

}  // namespace nsim::sim::core
