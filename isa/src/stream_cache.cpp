#include "isa/stream_cache.h"

#include <cstring>
#include <unordered_map>

#include "isa/encoding.h"

namespace nsim::isa {
namespace {

struct Cache {
    // Keyed on (CRC-32 of the section, code size); equal keys are told apart by comparing the bytes.
    std::unordered_multimap<uint64_t, InstructionList> entries;
    StreamCacheCounters counters;
    size_t inserts_since_sweep = 0;

    // Drops the entries only the cache still holds, every so many insertions, so that the sweep
    // costs no more than the insertions.
    void sweep() {
        if (++inserts_since_sweep < entries.size() / 2 + 16) return;
        inserts_since_sweep = 0;
        for (auto it = entries.begin(); it != entries.end();)
            it = it->second.holders() == 1 ? entries.erase(it) : std::next(it);
    }
};

Cache& cache() {
    static Cache instance;
    return instance;
}

}  // namespace

InstructionList decode_stream_cached(const uint8_t* code, size_t size, uint32_t count, uint32_t section_crc,
                                     size_t& failed_index) {
    Cache& c = cache();
    const uint64_t key = (uint64_t(section_crc) << 32) ^ uint64_t(size);
    const auto [first, last] = c.entries.equal_range(key);
    for (auto it = first; it != last; ++it) {
        const std::vector<uint8_t>& known = it->second.code();
        if (known.size() == size && it->second.size() == count && std::memcmp(known.data(), code, size) == 0) {
            c.counters.reused_bytes += size;
            return it->second;
        }
    }
    std::vector<Instruction> instructions(count);
    size_t at = 0;
    for (uint32_t i = 0; i < count; ++i) {
        failed_index = i;
        at += decode(code + at, size - at, instructions[i]);
    }
    if (at != size) {
        failed_index = count;
        throw DecodeError(std::to_string(size - at) + " bytes after the last instruction");
    }
    InstructionList list(std::move(instructions), std::vector<uint8_t>(code, code + size));
    c.counters.decoded_bytes += size;
    c.sweep();
    c.entries.emplace(key, list);
    return list;
}

StreamCacheCounters stream_cache_counters() { return cache().counters; }

}  // namespace nsim::isa
