// The FWIO mailbox's wire format, shared by the firmware model and the driver as the real driver's
// neuron_fw_io.h is: a request {u8 seq, u8 command, u16 size, u32 crc32c, data[size]} that the host
// writes into its memory, and a response {u8 seq, u8 error, u16 size, data[size]} the firmware writes
// back (driver.md 6). The CRC is CRC-32C over the whole request with its crc field zero. Command and
// error codes are per chip, in configs/ (FirmwareSpec).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include <boost/crc.hpp>

namespace nsim::firmware::fwio {

struct RequestHeader {
    uint8_t seq = 0;
    uint8_t command = 0;
    uint16_t size = 0;     // bytes of data after the header
    uint32_t crc32 = 0;
};
static_assert(sizeof(RequestHeader) == 8, "the request header is 8 bytes on the wire");

struct ResponseHeader {
    uint8_t seq = 0;
    uint8_t error = 0;
    uint16_t size = 0;
};
static_assert(sizeof(ResponseHeader) == 4, "the response header is 4 bytes on the wire");

// The largest payload a u16 size field describes; both buffers are allocated to hold it.
inline constexpr size_t kMaxData = 0xffff;
inline constexpr size_t kRequestBufferBytes = sizeof(RequestHeader) + kMaxData;
inline constexpr size_t kResponseBufferBytes = sizeof(ResponseHeader) + kMaxData;

// CRC-32C (Castagnoli), reflected, init and final XOR all ones.
using Crc32c = boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;

inline uint32_t request_crc(RequestHeader header, const uint8_t* data, size_t size) {
    header.crc32 = 0;
    Crc32c crc;
    crc.process_bytes(&header, sizeof header);
    crc.process_bytes(data, size);
    return crc.checksum();
}

// A READ request carries the BAR0 offsets to read as u32 words; its response the u32 values.
inline std::vector<uint8_t> pack_words(const std::vector<uint32_t>& words) {
    std::vector<uint8_t> bytes(words.size() * 4);
    if (!words.empty()) std::memcpy(bytes.data(), words.data(), bytes.size());
    return bytes;
}

inline std::vector<uint32_t> unpack_words(const uint8_t* data, size_t size) {
    std::vector<uint32_t> words(size / 4);
    if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);
    return words;
}

}  // namespace nsim::firmware::fwio
