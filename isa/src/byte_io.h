// Little-endian reading and writing of the container's fixed-width fields. The reader never reads
// past the end it was given: every read is bounds-checked and a short read throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nsim::isa::bytes {

class ShortRead : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Writer {
public:
    explicit Writer(std::vector<uint8_t>& out) : out_(out) {}
    void u8(uint8_t v) { out_.push_back(v); }
    void u16(uint16_t v) { put(v, 2); }
    void u32(uint32_t v) { put(v, 4); }
    void u64(uint64_t v) { put(v, 8); }
    void i32(int32_t v) { put(uint32_t(v), 4); }
    void raw(const void* data, size_t size) {
        auto p = static_cast<const uint8_t*>(data);
        out_.insert(out_.end(), p, p + size);
    }
    void zeros(size_t count) { out_.insert(out_.end(), count, 0); }
    void align(size_t alignment) {
        while (out_.size() % alignment) out_.push_back(0);
    }
    size_t position() const { return out_.size(); }

private:
    void put(uint64_t v, int width) {
        for (int i = 0; i < width; ++i) out_.push_back(uint8_t(v >> (8 * i)));
    }
    std::vector<uint8_t>& out_;
};

// Writes v little-endian at bytes[0..width) of an existing buffer (to patch fields after the fact).
inline void patch(uint8_t* bytes, uint64_t v, int width) {
    for (int i = 0; i < width; ++i) bytes[i] = uint8_t(v >> (8 * i));
}

class Reader {
public:
    Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    uint8_t u8() { return uint8_t(get(1)); }
    uint16_t u16() { return uint16_t(get(2)); }
    uint32_t u32() { return uint32_t(get(4)); }
    uint64_t u64() { return get(8); }
    int32_t i32() { return int32_t(uint32_t(get(4))); }
    std::string_view text(size_t length) {
        need(length);
        std::string_view s(reinterpret_cast<const char*>(data_ + pos_), length);
        pos_ += length;
        return s;
    }
    void skip(size_t count) {
        need(count);
        pos_ += count;
    }
    size_t position() const { return pos_; }
    size_t remaining() const { return size_ - pos_; }

private:
    void need(size_t count) const {
        if (__builtin_expect(count > size_ - pos_, 0)) short_read(count, size_ - pos_);
    }
    // Out of line, so that the checks stay small enough to inline into decoding.
    [[noreturn]] __attribute__((noinline, cold)) static void short_read(size_t count, size_t left) {
        throw ShortRead("needs " + std::to_string(count) + " more bytes, " + std::to_string(left) + " left");
    }
    uint64_t get(int width) {
        need(size_t(width));
        uint64_t v = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        std::memcpy(&v, data_ + pos_, size_t(width));  // the file's order is the host's: one load (decode's hot path)
#else
        for (int i = 0; i < width; ++i) v |= uint64_t(data_[pos_ + i]) << (8 * i);
#endif
        pos_ += size_t(width);
        return v;
    }
    const uint8_t* data_;
    size_t size_;
    size_t pos_ = 0;
};

}  // namespace nsim::isa::bytes
