// The access patterns of every instruction in the process, each distinct one held once.
// Why: an access pattern is 64 bytes and an instruction has up to seven of them, most absent; held
// inline, an isa::Instruction was ~520 bytes, and a program holds hundreds of thousands (issue 12:
// "instructions in memory take a few tens of bytes"). An instruction now holds a 32-bit id per operand
// and the patterns live here, interned: the same pattern (the same tile of SBUF read by every layer's
// matmul, the same row of a weight) is stored once however many instructions name it.
// Ids are stable for the life of the process and the patterns behind them never move, so a reference
// from pattern_of() stays valid. Nothing is ever freed: the pool grows with the distinct patterns the
// process has seen (BERT-large: a few hundred thousand, tens of MiB), not with how many instructions
// hold them.
// Editing: interned patterns are shared and never change. Instruction's mutable ap() copies the
// pattern into an entry of its own (editable_copy) and hands that out; the next edit through a copy of
// the instruction takes yet another entry, so copies never see each other's edits.
// Thread safety: interning and copying take a lock; reading a pattern by an id takes none (an id
// reaches another thread only through something that orders it after the pattern was written).
#pragma once

#include <atomic>
#include <cstdint>

#include "isa/access_pattern.h"

namespace nsim::isa {

// Id 0 is the absent pattern, AccessPattern{}: a zeroed instruction has every operand absent.
constexpr uint32_t kAbsentPattern = 0;

// The id of a pattern equal to `pattern`, stored the first time it is seen.
uint32_t intern_pattern(const AccessPattern& pattern);
// A new id, used by nothing else, holding a copy of the pattern `id` names; what an edit writes to.
uint32_t editable_copy(uint32_t id);
// Distinct patterns stored (interned and editable copies), for tests and the performance benchmark.
uint64_t pooled_pattern_count();

namespace pattern_pool_detail {
constexpr unsigned kChunkBits = 14;  // patterns per chunk: 2^14 (1 MiB)
constexpr uint32_t kChunkMask = (1u << kChunkBits) - 1;
constexpr uint32_t kMaxChunks = 1u << 16;  // 2^30 patterns
extern std::atomic<AccessPattern*> chunks[kMaxChunks];
inline const AccessPattern kAbsent{};
}  // namespace pattern_pool_detail

inline const AccessPattern& pattern_of(uint32_t id) {
    using namespace pattern_pool_detail;
    if (id == kAbsentPattern) return kAbsent;
    const uint32_t index = id - 1;
    return chunks[index >> kChunkBits].load(std::memory_order_acquire)[index & kChunkMask];
}

// Only for an id editable_copy returned (an interned pattern is shared: never write to it).
inline AccessPattern& editable_pattern_of(uint32_t id) { return const_cast<AccessPattern&>(pattern_of(id)); }

}  // namespace nsim::isa
