// One decoded instruction: the opcode, its operands in table order, and its synchronisation.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "isa/access_pattern.h"
#include "isa/access_pattern_pool.h"
#include "isa/opcode_table.h"

namespace nsim::isa {

constexpr uint16_t kNoSemaphore = 0xFFFF;

// Before issuing, the engine waits until semaphore wait_semaphore >= wait_value; when the
// instruction completes it increments signal_semaphore by one. kNoSemaphore disables either.
struct Sync {
    uint16_t wait_semaphore = kNoSemaphore;
    uint32_t wait_value = 0;
    uint16_t signal_semaphore = kNoSemaphore;
    bool operator==(const Sync& o) const {
        return wait_semaphore == o.wait_semaphore && wait_value == o.wait_value &&
               signal_semaphore == o.signal_semaphore;
    }
};

// A field's value: access-pattern fields name their pattern by its id in the process's pattern pool
// (`pattern`, access_pattern_pool.h: an instruction is ~70 bytes, not ~520 with the patterns inline),
// every other kind uses the 32 raw bits in `bits` (an f32's bit pattern, an i32/u32, an enumeration's
// value, a semaphore index).
struct Operand {
    uint32_t bits = 0;
    uint32_t pattern = kAbsentPattern;
    const AccessPattern& ap() const { return pattern_of(pattern); }
    bool operator==(const Operand& o) const {
        return bits == o.bits && (pattern == o.pattern || pattern_of(pattern) == pattern_of(o.pattern));
    }
};

struct Instruction {
    Opcode opcode = Opcode::Invalid;
    Sync sync;
    std::array<Operand, max_field_count()> fields{};

    const AccessPattern& ap(size_t field) const { return pattern_of(fields[field].pattern); }
    // For editing in place: the field gets a pattern of its own first (see access_pattern_pool.h), so
    // other instructions holding the same pattern keep theirs. set() is the cheaper way to build.
    AccessPattern& ap(size_t field) {
        fields[field].pattern = editable_copy(fields[field].pattern);
        return editable_pattern_of(fields[field].pattern);
    }
    uint32_t u32(size_t field) const { return fields[field].bits; }
    int32_t i32(size_t field) const { return int32_t(fields[field].bits); }
    float f32(size_t field) const {
        float value;
        std::memcpy(&value, &fields[field].bits, sizeof value);
        return value;
    }
    ActivationFunction activation(size_t field) const { return ActivationFunction(fields[field].bits); }
    AluOp alu(size_t field) const { return AluOp(fields[field].bits); }
    ReduceOp reduce(size_t field) const { return ReduceOp(fields[field].bits); }
    AccumulateMode accumulate(size_t field) const { return AccumulateMode(fields[field].bits); }

    Instruction& set(size_t field, const AccessPattern& value) {
        fields[field].pattern = intern_pattern(value);
        return *this;
    }
    Instruction& set_u32(size_t field, uint32_t value) { fields[field].bits = value; return *this; }
    Instruction& set_i32(size_t field, int32_t value) { fields[field].bits = uint32_t(value); return *this; }
    Instruction& set_f32(size_t field, float value) {
        std::memcpy(&fields[field].bits, &value, sizeof value);
        return *this;
    }
    template <class Enum>
    Instruction& set_enum(size_t field, Enum value) { fields[field].bits = uint32_t(value); return *this; }

    bool operator==(const Instruction& o) const {
        return opcode == o.opcode && sync == o.sync && fields == o.fields;
    }
    bool operator!=(const Instruction& o) const { return !(*this == o); }
};

}  // namespace nsim::isa
