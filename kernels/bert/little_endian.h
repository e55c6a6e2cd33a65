// Little-endian loads and stores of the element types checkpoints hold, independent of host byte order.
#pragma once

#include <cstdint>
#include <cstring>

namespace nsim::kernels {

inline uint64_t load_le(const uint8_t* p, int bytes) {
    uint64_t value = 0;
    for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | p[i];
    return value;
}

inline void store_le(uint8_t* p, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(value >> (8 * i));
}

inline float load_le_f32(const uint8_t* p) {
    const auto bits = static_cast<uint32_t>(load_le(p, 4));
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
}

inline double load_le_f64(const uint8_t* p) {
    const uint64_t bits = load_le(p, 8);
    double value;
    std::memcpy(&value, &bits, 8);
    return value;
}

inline void store_le_f32(uint8_t* p, float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    store_le(p, bits, 4);
}

}  // namespace nsim::kernels
