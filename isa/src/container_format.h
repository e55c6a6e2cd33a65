// The container's fixed parts that its writer (container_writer.cpp) and reader (container_io.cpp)
// share: the magic, the header's checksum field, alignments and the checksum itself (FORMAT.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <zlib.h>

namespace nsim::isa::format {

constexpr char kMagic[8] = {'N', 'S', 'I', 'M', 'E', 'X', 'E', '\0'};
constexpr size_t kHeaderCrcOffset = 60;
constexpr size_t kSectionAlignment = 16;
constexpr size_t kDataAlignment = 64;

// zlib's crc32 is the same CRC as boost::crc_32_type (FORMAT.md) and several times faster (it
// processes words, not bytes); it was 17% of `neuron-sim run` before. `crc` continues a checksum of
// the bytes before (0 for none).
inline uint32_t crc32_of(const uint8_t* data, size_t size, uint32_t crc = 0) {
    return uint32_t(crc32_z(crc, data, size));
}

}  // namespace nsim::isa::format
