// Decoding an instruction stream once per process. The tool and the runtime read the same file, an
// execution fetches back the code the load wrote, and a data-parallel program holds the same stream
// for every core: each of them asks this cache, which hands out the one shared InstructionList
// decoded from those bytes. The key is the bytes themselves (compared in full, not only a hash), so a
// changed byte always decodes afresh. An entry lives while some list outside the cache still holds
// it; the cache never keeps a program alive on its own.
#pragma once

#include <cstddef>
#include <cstdint>

#include "isa/instruction_list.h"

namespace nsim::isa {

// The `count` instructions encoded in code[0, size), decoded (or found decoded). `section_crc` is the
// checksum of the stream's whole section (count, reserved, code), which the reader has computed
// already: it selects the candidates, the bytes decide. Throws DecodeError with the failing
// instruction's index in `failed_index` when the bytes do not decode.
InstructionList decode_stream_cached(const uint8_t* code, size_t size, uint32_t count, uint32_t section_crc,
                                     size_t& failed_index);

// Bytes of code decoded since the process started, and bytes served from the cache instead: what the
// performance benchmark prints and the tests check.
struct StreamCacheCounters {
    uint64_t decoded_bytes = 0;
    uint64_t reused_bytes = 0;
};
StreamCacheCounters stream_cache_counters();

}  // namespace nsim::isa
