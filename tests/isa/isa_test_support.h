// Shared helpers of the isa tests: a made-up generation, a small valid program, and byte surgery on
// written containers (with checksums repaired so the reader gets past them to the damage under test).
#pragma once

#include <boost/crc.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "isa/container.h"
#include "isa/container_io.h"
#include "isa/validator.h"

namespace nsim::isa::test {

// Deliberately not any real chip: the validator must work from whatever it is given.
inline GenerationLimits made_up_limits() {
    GenerationLimits l;
    l.generation = 2;
    l.engines = table_names::ANY_ENGINE;
    l.sbuf_partitions = 64;
    l.sbuf_bytes_per_partition = 4096;
    l.psum_partitions = 64;
    l.psum_bytes_per_partition = 1024;
    l.max_contraction = 64;
    l.max_stationary_free = 64;
    l.max_moving_free = 256;
    l.semaphores = 16;
    l.dma_queues = 4;
    return l;
}

inline AccessPattern sbuf(DType t, uint32_t partitions, uint64_t offset, uint32_t free) {
    AccessPattern ap;
    ap.space = MemorySpace::Sbuf;
    ap.dtype = t;
    ap.partition_start = 0;
    ap.partition_count = partitions;
    ap.offset = offset;
    ap.dim_count = 1;
    ap.dims[0] = {1, free};
    return ap;
}

inline AccessPattern psum(uint32_t partitions, uint64_t offset, uint32_t free) {
    AccessPattern ap = sbuf(DType::Fp32, partitions, offset, free);
    ap.space = MemorySpace::Psum;
    return ap;
}

inline AccessPattern dram(uint32_t tensor, DType t, uint32_t rows, int32_t row_stride, uint64_t offset, uint32_t free) {
    AccessPattern ap;
    ap.space = MemorySpace::Dram;
    ap.dtype = t;
    ap.tensor = tensor;
    ap.partition_count = rows;
    ap.partition_stride = row_stride;
    ap.offset = offset;
    ap.dim_count = 1;
    ap.dims[0] = {1, free};
    return ap;
}

inline Instruction matmul(uint32_t contraction, uint32_t stationary_free, uint32_t moving_free) {
    Instruction m;
    m.opcode = Opcode::Matmul;
    m.set(fields::Matmul::dst, psum(stationary_free, 0, moving_free));
    m.set(fields::Matmul::stationary, sbuf(DType::Bf16, contraction, 0, stationary_free));
    m.set(fields::Matmul::moving, sbuf(DType::Bf16, contraction, 1024, moving_free));
    m.set_enum(fields::Matmul::acc, AccumulateMode::Overwrite);
    return m;
}

// One core: dma0 loads a tile of W (with data), pe multiplies; sections as the writer numbers them:
// 0 metadata, 1 tensor table, 2 semaphore names, 3 pe stream, 4 dma0 stream, 5 data.
inline Container small_program() {
    Container c;
    c.generation = 2;
    c.cores_needed = 1;
    c.metadata = {{"model", "unit-test"}, {"batch", "1"}};
    TensorInfo w;
    w.name = "W";
    w.role = TensorRole::Weight;
    w.dtype = DType::Bf16;
    w.shape = {64, 64};
    w.offset = 0;
    w.data.resize(w.size_bytes());
    for (size_t i = 0; i < w.data.size(); ++i) w.data[i] = uint8_t(i * 7);
    c.tensors.push_back(w);
    c.semaphore_names = {{0, "loaded"}};

    InstructionStream pe;
    pe.engine = Engine::Pe;
    Instruction m = matmul(64, 64, 256);
    m.sync.wait_semaphore = 0;
    m.sync.wait_value = 1;
    pe.instructions.push_back(m);
    InstructionStream dma;
    dma.engine = Engine::Dma;
    Instruction load;
    load.opcode = Opcode::DmaCopy;
    load.set(fields::DmaCopy::dst, sbuf(DType::Bf16, 64, 0, 64));
    load.set(fields::DmaCopy::src, dram(0, DType::Bf16, 64, 64, 0, 64));
    load.sync.signal_semaphore = 0;
    dma.instructions.push_back(load);
    c.streams = {pe, dma};
    c.canonicalize();
    return c;
}

inline uint32_t crc32(const uint8_t* p, size_t n) {
    boost::crc_32_type crc;
    crc.process_bytes(p, n);
    return crc.checksum();
}

inline uint64_t get(const std::vector<uint8_t>& b, size_t at, int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) v |= uint64_t(b[at + i]) << (8 * i);
    return v;
}

inline void put(std::vector<uint8_t>& b, size_t at, uint64_t v, int width) {
    for (int i = 0; i < width; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

// Offsets of the layout documented in isa/FORMAT.md.
constexpr size_t kHeaderCrc = 60, kTableCrc = 40, kSectionCount = 20, kTableOffset = 24;
inline size_t entry_at(const std::vector<uint8_t>& b, size_t section) {
    return size_t(get(b, kTableOffset, 8)) + section * kSectionEntryBytes;
}
inline uint64_t section_offset(const std::vector<uint8_t>& b, size_t s) { return get(b, entry_at(b, s) + 8, 8); }
inline uint64_t section_size(const std::vector<uint8_t>& b, size_t s) { return get(b, entry_at(b, s) + 16, 8); }

// Recomputes every section checksum, the section table's and the header's.
inline void refresh_checksums(std::vector<uint8_t>& b) {
    const size_t count = size_t(get(b, kSectionCount, 4));
    for (size_t s = 0; s < count; ++s) {
        const uint64_t off = section_offset(b, s), size = section_size(b, s);
        if (off <= b.size() && size <= b.size() - off) put(b, entry_at(b, s) + 24, crc32(&b[off], size), 4);
    }
    put(b, kTableCrc, crc32(&b[get(b, kTableOffset, 8)], count * kSectionEntryBytes), 4);
    put(b, kHeaderCrc, crc32(b.data(), kHeaderCrc), 4);
}

// The reader's one-line complaint about `bytes`, or "(no error)".
inline std::string read_error(const std::vector<uint8_t>& bytes) {
    try {
        read_container(bytes);
    } catch (const ContainerError& e) {
        return e.what();
    }
    return "(no error)";
}

inline std::string hex32(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

}  // namespace nsim::isa::test
