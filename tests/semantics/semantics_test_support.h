// A core's memories for semantics tests, operand builders, and element access at addresses the
// tests compute themselves (FORMAT.md 5), independently of sim/core/semantics/operand_bytes.cpp.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/semantics/dtype_conversion.h"
#include "core/semantics/functional.h"
#include "isa/instruction.h"

namespace nsim::sim::core::test {

using isa::AccessPattern;
using isa::DType;
using isa::MemorySpace;

// Test geometry (not a hardware claim): small partitions keep the tests fast.
constexpr uint32_t kPartitions = 128;
constexpr uint64_t kSbufPartitionBytes = 64 * 1024;
constexpr uint64_t kPsumPartitionBytes = 16 * 1024;
constexpr uint64_t kDramBytes = 8 << 20;
constexpr uint64_t kHostBytes = 1 << 20;

constexpr DType kAllDtypes[] = {DType::Fp32,    DType::Bf16, DType::Fp16,  DType::Fp8E4m3,
                                DType::Fp8E5m2, DType::Int8, DType::Int32, DType::Uint8};
constexpr DType kFloatDtypes[] = {DType::Fp32, DType::Bf16, DType::Fp16, DType::Fp8E4m3, DType::Fp8E5m2};

inline std::string dtype_name(DType t) { return std::string(isa::name_of(t)); }

struct Machine {
    SparseMemory sbuf{kPartitions * kSbufPartitionBytes};
    SparseMemory psum{kPartitions * kPsumPartitionBytes};
    SparseMemory dram{kDramBytes};
    SparseMemory host{kHostBytes};
    // tensor index -> byte address in dram (DRAM operands) or host (HOST operands)
    std::map<uint32_t, uint64_t> tensor_base{{0, 0}, {1, 1 << 20}, {2, 3 << 20}, {7, 4096}};

    MemorySpaces spaces() {
        MemorySpaces s;
        s.sbuf = &sbuf;
        s.sbuf_partition_bytes = kSbufPartitionBytes;
        s.psum = &psum;
        s.psum_partition_bytes = kPsumPartitionBytes;
        s.tensor_location = [this](MemorySpace space, uint32_t tensor) {
            return TensorLocation{space == MemorySpace::Host ? &host : &dram, tensor_base.at(tensor)};
        };
        return s;
    }
    SparseMemory& memory_of(MemorySpace space) {
        switch (space) {
            case MemorySpace::Sbuf: return sbuf;
            case MemorySpace::Psum: return psum;
            case MemorySpace::Host: return host;
            default: return dram;
        }
    }
};

inline AccessPattern on_chip(MemorySpace space, DType t, uint32_t start, uint32_t count, uint64_t offset,
                             std::initializer_list<std::pair<int32_t, uint32_t>> dims) {
    AccessPattern ap;
    ap.space = space;
    ap.dtype = t;
    ap.partition_start = start;
    ap.partition_count = count;
    ap.offset = offset;
    for (auto [stride, n] : dims) ap.dims[ap.dim_count++] = {stride, n};
    return ap;
}
inline AccessPattern sbuf(DType t, uint32_t start, uint32_t count, uint64_t offset,
                          std::initializer_list<std::pair<int32_t, uint32_t>> dims) {
    return on_chip(MemorySpace::Sbuf, t, start, count, offset, dims);
}
inline AccessPattern psum(DType t, uint32_t start, uint32_t count, uint64_t offset,
                          std::initializer_list<std::pair<int32_t, uint32_t>> dims) {
    return on_chip(MemorySpace::Psum, t, start, count, offset, dims);
}
// A contiguous [count, free] SBUF tile.
inline AccessPattern sbuf_tile(DType t, uint32_t start, uint32_t count, uint64_t offset, uint32_t free) {
    return sbuf(t, start, count, offset, {{1, free}});
}
inline AccessPattern tensor(MemorySpace space, DType t, uint32_t index, uint32_t rows, int32_t row_stride,
                            uint64_t offset, std::initializer_list<std::pair<int32_t, uint32_t>> dims) {
    AccessPattern ap;
    ap.space = space;
    ap.dtype = t;
    ap.tensor = index;
    ap.partition_count = rows;
    ap.partition_stride = row_stride;
    ap.offset = offset;
    for (auto [stride, n] : dims) ap.dims[ap.dim_count++] = {stride, n};
    return ap;
}

// Byte address of element (p, i0, i1, ...) of a pattern, straight from FORMAT.md section 5.
inline uint64_t address_of(Machine& m, const AccessPattern& ap, uint32_t p, std::initializer_list<uint32_t> index) {
    const int64_t size = isa::size_in_bytes(ap.dtype);
    int64_t element = 0;
    size_t d = 0;
    for (uint32_t i : index) element += int64_t(i) * ap.dims[d++].stride;
    if (ap.space == MemorySpace::Sbuf) return (ap.partition_start + p) * kSbufPartitionBytes + ap.offset + element * size;
    if (ap.space == MemorySpace::Psum) return (ap.partition_start + p) * kPsumPartitionBytes + ap.offset + element * size;
    return m.tensor_base.at(ap.tensor) + ap.offset + (int64_t(p) * ap.partition_stride + element) * size;
}

inline void put(SparseMemory& mem, uint64_t address, DType t, float value) {
    uint8_t bytes[4];
    dtype::encode(t, &value, bytes, 1);
    mem.write(address, bytes, isa::size_in_bytes(t));
}
inline float get(const SparseMemory& mem, uint64_t address, DType t) {
    uint8_t bytes[4];
    mem.read(address, bytes, isa::size_in_bytes(t));
    float v;
    dtype::decode(t, bytes, &v, 1);
    return v;
}

// Values of a one-free-dimension pattern, [p][i] (stride from the pattern's dims[0]).
inline void store_rows(Machine& m, const AccessPattern& ap, const std::vector<float>& values) {
    const uint32_t free = ap.dims[0].count;
    for (uint32_t p = 0; p < ap.partition_count; ++p)
        for (uint32_t i = 0; i < free; ++i)
            put(m.memory_of(ap.space), address_of(m, ap, p, {i}), ap.dtype, values[p * free + i]);
}
inline std::vector<float> load_rows(Machine& m, const AccessPattern& ap) {
    const uint32_t free = ap.dims[0].count;
    std::vector<float> out(size_t(ap.partition_count) * free);
    for (uint32_t p = 0; p < ap.partition_count; ++p)
        for (uint32_t i = 0; i < free; ++i) out[p * free + i] = get(m.memory_of(ap.space), address_of(m, ap, p, {i}), ap.dtype);
    return out;
}

// Random values already representable in `t` (so the stored input is exactly what the reference uses).
inline std::vector<float> random_values(std::mt19937& rng, DType t, size_t n, float low, float high) {
    std::uniform_real_distribution<float> dist(low, high);
    std::vector<float> v(n);
    for (float& x : v) {
        x = dist(rng);
        if (!isa::is_float(t)) x = std::round(x);
        x = dtype::round_to(t, x);
    }
    return v;
}

// Value range that is interesting and representable for each type.
inline std::pair<float, float> range_of(DType t) {
    switch (t) {
        case DType::Uint8: return {0.0f, 255.0f};
        case DType::Int8: return {-128.0f, 127.0f};
        case DType::Int32: return {-100000.0f, 100000.0f};
        case DType::Fp8E4m3: return {-16.0f, 16.0f};
        case DType::Fp8E5m2: return {-16.0f, 16.0f};
        default: return {-8.0f, 8.0f};
    }
}

// Spacing of representable values of `t` around x (its ulp), for float types; 1 for integers.
inline double ulp_of(DType t, double x) {
    int mantissa = 23, min_exponent = -126;
    switch (t) {
        case DType::Bf16: mantissa = 7; break;
        case DType::Fp16: mantissa = 10; min_exponent = -14; break;
        case DType::Fp8E4m3: mantissa = 3; min_exponent = -6; break;
        case DType::Fp8E5m2: mantissa = 2; min_exponent = -14; break;
        case DType::Fp32: break;
        default: return 1.0;
    }
    const double a = std::fabs(x);
    const int e = a > 0 ? std::max(int(std::floor(std::log2(a))), min_exponent) : min_exponent;
    return std::ldexp(1.0, e - mantissa);
}

// Equal as values, with NaN equal to NaN.
inline bool same_value(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

inline Tile blank_tile(uint32_t partitions, uint64_t free) {
    Tile t;
    t.partitions = partitions;
    t.free = free;
    t.values.assign(size_t(partitions) * free, 0.0f);
    return t;
}

inline isa::Instruction make(isa::Opcode op) {
    isa::Instruction i;
    i.opcode = op;
    return i;
}

}  // namespace nsim::sim::core::test
