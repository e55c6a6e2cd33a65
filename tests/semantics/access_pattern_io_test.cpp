// read_tile / write_tile / copy_elements over access patterns: every element at the address
// FORMAT.md section 5 gives (computed here by address_of), bytes around them untouched; and the
// contiguous runs of an operand (a DMA's descriptors).
#include <cstring>

#include "core/semantics/operand_bytes.h"
#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

// A distinct, exactly representable value per (p, index).
float marker(uint32_t p, uint32_t i) { return float(p * 1000 + i); }

TEST(AccessPatternIo, SbufStridedPatternWithPartitionStartAndUnalignedOffset) {
    Machine m;
    // 3 partitions from 5, offset 6 bytes (not fp32-aligned), [[3,4],[1,2]]: elements 0,1,3,4,6,7,9,10.
    const AccessPattern ap = sbuf(DType::Fp32, 5, 3, 6, {{3, 4}, {1, 2}});
    for (uint32_t p = 0; p < 3; ++p)
        for (uint32_t a = 0; a < 4; ++a)
            for (uint32_t b = 0; b < 2; ++b) put(m.sbuf, address_of(m, ap, p, {a, b}), DType::Fp32, marker(p, a * 2 + b));
    const Tile t = read_tile(ap, m.spaces());
    ASSERT_EQ(t.partitions, 3u);
    ASSERT_EQ(t.free, 8u);
    for (uint32_t p = 0; p < 3; ++p)
        for (uint32_t f = 0; f < 8; ++f) EXPECT_EQ(t.at(p, f), marker(p, f)) << p << "," << f;
}

TEST(AccessPatternIo, FourFreeDimensionsLastFastest) {
    Machine m;
    const AccessPattern ap = sbuf(DType::Bf16, 0, 2, 100, {{200, 2}, {50, 3}, {7, 2}, {1, 3}});
    uint32_t n = 0;
    for (uint32_t p = 0; p < 2; ++p)
        for (uint32_t a = 0; a < 2; ++a)
            for (uint32_t b = 0; b < 3; ++b)
                for (uint32_t c = 0; c < 2; ++c)
                    for (uint32_t d = 0; d < 3; ++d) put(m.sbuf, address_of(m, ap, p, {a, b, c, d}), DType::Bf16, float(n++));
    const Tile t = read_tile(ap, m.spaces());
    ASSERT_EQ(t.values.size(), 72u);
    for (uint32_t i = 0; i < 72; ++i) EXPECT_EQ(t.values[i], float(i));
}

TEST(AccessPatternIo, NegativeStrideReadsBackwardsAndStrideZeroBroadcasts) {
    Machine m;
    const AccessPattern forward = sbuf_tile(DType::Fp16, 0, 4, 64, 8);
    std::vector<float> values(32);
    for (uint32_t i = 0; i < 32; ++i) values[i] = float(i) - 10.0f;
    store_rows(m, forward, values);
    // Start at the last element of each row and walk back.
    const Tile reversed = read_tile(sbuf(DType::Fp16, 0, 4, 64 + 7 * 2, {{-1, 8}}), m.spaces());
    for (uint32_t p = 0; p < 4; ++p)
        for (uint32_t f = 0; f < 8; ++f) EXPECT_EQ(reversed.at(p, f), values[p * 8 + 7 - f]);
    // [[0,3],[1,8]]: the row three times.
    const Tile broadcast = read_tile(sbuf(DType::Fp16, 0, 4, 64, {{0, 3}, {1, 8}}), m.spaces());
    for (uint32_t p = 0; p < 4; ++p)
        for (uint32_t r = 0; r < 3; ++r)
            for (uint32_t f = 0; f < 8; ++f) EXPECT_EQ(broadcast.at(p, r * 8 + f), values[p * 8 + f]);
}

TEST(AccessPatternIo, StridedWriteKeepsTheBytesBetweenElements) {
    Machine m;
    std::vector<uint8_t> sentinel(256, 0xAB);
    for (uint32_t p = 0; p < 128; ++p) m.sbuf.write(p * kSbufPartitionBytes + 1000, sentinel.data(), sentinel.size());
    const AccessPattern ap = sbuf(DType::Int32, 0, 128, 1000, {{5, 10}});  // every 5th int32
    Tile t = read_tile(ap, m.spaces());
    for (uint32_t p = 0; p < 128; ++p)
        for (uint32_t f = 0; f < 10; ++f) t.at(p, f) = float(int(p) - int(f) * 3);
    write_tile(ap, t, m.spaces());
    for (uint32_t p = 0; p < 128; ++p) {
        std::vector<uint8_t> bytes(256);
        m.sbuf.read(p * kSbufPartitionBytes + 1000, bytes.data(), bytes.size());
        for (uint32_t b = 0; b < 256; ++b) {
            const uint32_t element = b / 4;
            if (element % 5 == 0 && element / 5 < 10) continue;
            ASSERT_EQ(bytes[b], 0xAB) << "partition " << p << " byte " << b;
        }
        for (uint32_t f = 0; f < 10; ++f) {
            int32_t v;
            std::memcpy(&v, &bytes[f * 20], 4);
            EXPECT_EQ(v, int(p) - int(f) * 3);
        }
    }
}

TEST(AccessPatternIo, WriteThroughStrideZeroKeepsTheLastElement) {
    Machine m;
    const AccessPattern ap = sbuf(DType::Fp32, 3, 2, 0, {{0, 4}});
    Tile t = blank_tile(2, 4);
    for (uint32_t i = 0; i < 8; ++i) t.values[i] = float(i);
    write_tile(ap, t, m.spaces());
    EXPECT_EQ(get(m.sbuf, 3 * kSbufPartitionBytes, DType::Fp32), 3.0f);
    EXPECT_EQ(get(m.sbuf, 4 * kSbufPartitionBytes, DType::Fp32), 7.0f);
}

TEST(AccessPatternIo, PsumPartitionsUseThePsumPartitionSize) {
    Machine m;
    const AccessPattern ap = psum(DType::Fp32, 64, 64, 2048, {{1, 512}});
    std::vector<float> values(64 * 512);
    for (size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 0.5f;
    Tile t = blank_tile(64, 512);
    t.values = values;
    write_tile(ap, t, m.spaces());
    EXPECT_EQ(load_rows(m, ap), values);
    EXPECT_EQ(get(m.psum, 65 * kPsumPartitionBytes + 2048 + 4, DType::Fp32), values[513]);
}

TEST(AccessPatternIo, DramRowsWithRowStrideOffsetAndTensorBase) {
    Machine m;
    // Tensor 1 is a [10, 16] bf16 matrix; read rows 2..5, columns 3..8 (offset = (2*16 + 3) elements).
    const AccessPattern whole = tensor(MemorySpace::Dram, DType::Bf16, 1, 10, 16, 0, {{1, 16}});
    std::vector<float> matrix(160);
    for (uint32_t i = 0; i < 160; ++i) matrix[i] = float(i);
    store_rows(m, whole, matrix);
    const Tile block = read_tile(tensor(MemorySpace::Dram, DType::Bf16, 1, 4, 16, (2 * 16 + 3) * 2, {{1, 6}}), m.spaces());
    for (uint32_t r = 0; r < 4; ++r)
        for (uint32_t c = 0; c < 6; ++c) EXPECT_EQ(block.at(r, c), matrix[(r + 2) * 16 + c + 3]);
    // Negative row stride: the same rows bottom up.
    const Tile upward =
        read_tile(tensor(MemorySpace::Dram, DType::Bf16, 1, 4, -16, (5 * 16 + 3) * 2, {{1, 6}}), m.spaces());
    for (uint32_t r = 0; r < 4; ++r)
        for (uint32_t c = 0; c < 6; ++c) EXPECT_EQ(upward.at(r, c), matrix[(5 - r) * 16 + c + 3]);
    // A column as rows of one element: the transpose view a DMA uses.
    const Tile column = read_tile(tensor(MemorySpace::Dram, DType::Bf16, 1, 10, 16, 2 * 7, {}), m.spaces());
    ASSERT_EQ(column.free, 1u);
    for (uint32_t r = 0; r < 10; ++r) EXPECT_EQ(column.values[r], matrix[r * 16 + 7]);
}

TEST(AccessPatternIo, HostTensorsLiveInHostMemory) {
    Machine m;
    const AccessPattern ap = tensor(MemorySpace::Host, DType::Uint8, 7, 3, 100, 5, {{2, 4}});
    Tile t = blank_tile(3, 4);
    for (uint32_t i = 0; i < 12; ++i) t.values[i] = float(i * 20);
    write_tile(ap, t, m.spaces());
    for (uint32_t r = 0; r < 3; ++r)
        for (uint32_t c = 0; c < 4; ++c) {
            uint8_t b;
            m.host.read(4096 + 5 + r * 100 + c * 2, &b, 1);
            EXPECT_EQ(b, (r * 4 + c) * 20);
        }
    uint8_t untouched;
    m.dram.read(4096 + 5, &untouched, 1);
    EXPECT_EQ(untouched, 0);
}

TEST(AccessPatternIo, RowsWiderThanTheSpanBufferGoRunByRun) {
    Machine m;
    // 4 elements 20000 fp32 apart: a 240 KB reach for 16 bytes of payload.
    const AccessPattern ap = tensor(MemorySpace::Dram, DType::Fp32, 0, 2, 70000, 8, {{20000, 4}});
    Tile t = blank_tile(2, 4);
    for (uint32_t i = 0; i < 8; ++i) t.values[i] = float(i) + 0.25f;
    write_tile(ap, t, m.spaces());
    for (uint32_t r = 0; r < 2; ++r)
        for (uint32_t c = 0; c < 4; ++c) EXPECT_EQ(get(m.dram, address_of(m, ap, r, {c}), DType::Fp32), float(r * 4 + c) + 0.25f);
    EXPECT_EQ(get(m.dram, 8 + 4, DType::Fp32), 0.0f);
    EXPECT_EQ(read_tile(ap, m.spaces()).values, t.values);
}

TEST(AccessPatternIo, WriteRoundsToTheOperandType) {
    Machine m;
    const AccessPattern ap = sbuf_tile(DType::Bf16, 0, 1, 0, 3);
    Tile t = blank_tile(1, 3);
    t.values = {1.00390625f, 1.01171875f, -3.0e38f};  // 1 + 2^-8 (tie -> 1), 1 + 3*2^-8 (tie -> 1 + 2^-6)
    write_tile(ap, t, m.spaces());
    EXPECT_EQ(load_rows(m, ap), (std::vector<float>{1.0f, 1.015625f, dtype::bf16_to_float(dtype::float_to_bf16(-3.0e38f))}));
}

TEST(AccessPatternIo, CopyElementsMovesBitPatternsWhenTypesMatch) {
    Machine m;
    const uint32_t words[] = {0x7FA00001u, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu};  // NaN payloads, -0, int max
    for (uint32_t i = 0; i < 4; ++i) m.dram.write(i * 4, reinterpret_cast<const uint8_t*>(&words[i]), 4);
    const AccessPattern src_f = tensor(MemorySpace::Dram, DType::Fp32, 0, 2, 2, 0, {{1, 2}});
    const AccessPattern src_i = tensor(MemorySpace::Dram, DType::Int32, 0, 2, 2, 0, {{1, 2}});
    copy_elements(sbuf(DType::Fp32, 10, 2, 12, {{1, 2}}), src_f, m.spaces());
    copy_elements(sbuf(DType::Int32, 20, 1, 0, {{1, 4}}), src_i, m.spaces());
    for (uint32_t i = 0; i < 4; ++i) {
        uint32_t a, b;
        m.sbuf.read((10 + i / 2) * kSbufPartitionBytes + 12 + (i % 2) * 4, reinterpret_cast<uint8_t*>(&a), 4);
        m.sbuf.read(20 * kSbufPartitionBytes + i * 4, reinterpret_cast<uint8_t*>(&b), 4);
        EXPECT_EQ(a, words[i]);
        EXPECT_EQ(b, words[i]);
    }
}

TEST(AccessPatternIo, CopyElementsConvertsWhenTypesDiffer) {
    Machine m;
    const AccessPattern src = sbuf_tile(DType::Fp32, 0, 4, 0, 4);
    std::vector<float> values = {0.1f, -2.5f, 3.5f, 1e6f, 65520.0f, -0.0f, 1.0f / 3.0f, 300.0f,
                                 -1e-9f, 7.0f, 255.5f, -129.0f, 2.0f, 1e-3f, 42.0f, 0.5f};
    store_rows(m, src, values);
    for (DType t : kAllDtypes) {
        const AccessPattern dst = tensor(MemorySpace::Dram, t, 2, 16, 1, 0, {});  // 16 rows of one element
        copy_elements(dst, src, m.spaces());
        for (uint32_t i = 0; i < 16; ++i)
            EXPECT_TRUE(same_value(get(m.dram, address_of(m, dst, i, {}), t), dtype::round_to(t, values[i])))
                << dtype_name(t) << " element " << i;
    }
}

TEST(AccessPatternIo, ErrorsAreSemanticsErrors) {
    Machine m;
    const MemorySpaces s = m.spaces();
    EXPECT_THROW(read_tile(sbuf_tile(DType::Fp32, 100, 29, 0, 4), s), SemanticsError);      // partitions past 128
    EXPECT_THROW(read_tile(sbuf_tile(DType::Fp32, 0, 1, kSbufPartitionBytes - 8, 4), s), SemanticsError);
    EXPECT_THROW(read_tile(sbuf(DType::Fp32, 0, 1, 4, {{-2, 3}}), s), SemanticsError);     // before the partition
    EXPECT_THROW(read_tile(psum(DType::Fp32, 0, 1, kPsumPartitionBytes, {{1, 1}}), s), SemanticsError);
    EXPECT_THROW(read_tile(sbuf_tile(DType::None, 0, 1, 0, 4), s), SemanticsError);
    EXPECT_THROW(read_tile(sbuf_tile(DType(200), 0, 1, 0, 4), s), SemanticsError);
    AccessPattern no_space = sbuf_tile(DType::Fp32, 0, 1, 0, 4);
    no_space.space = MemorySpace(9);
    EXPECT_THROW(read_tile(no_space, s), SemanticsError);
    // Stride-0 dimensions naming 2^48 elements of one address: refused before allocating anything.
    EXPECT_THROW(read_tile(sbuf(DType::Fp32, 0, 1, 0, {{0, 65536}, {0, 65536}, {0, 65536}}), s), SemanticsError);
    EXPECT_THROW(write_tile(sbuf(DType::Fp32, 0, 1, 0, {{0, 65536}, {0, 65536}, {0, 65536}}), blank_tile(1, 1), s),
                 SemanticsError);
    AccessPattern dram = tensor(MemorySpace::Dram, DType::Fp32, 2, 2, 2 << 20, 0, {{1, 4}});  // second row past 8 MiB
    EXPECT_THROW(read_tile(dram, s), SemanticsError);
    dram = tensor(MemorySpace::Dram, DType::Fp32, 0, 2, -4, 0, {{1, 4}});  // second row before address 0
    EXPECT_THROW(read_tile(dram, s), SemanticsError);
    dram = tensor(MemorySpace::Dram, DType::Fp32, 0, 2, 4, 0, {{1, 4}});
    dram.partition_start = 1;
    EXPECT_THROW(read_tile(dram, s), SemanticsError);
    MemorySpaces no_tensors = s;
    no_tensors.tensor_location = nullptr;
    EXPECT_THROW(read_tile(tensor(MemorySpace::Dram, DType::Fp32, 0, 1, 0, 0, {}), no_tensors), SemanticsError);
    MemorySpaces no_psum = s;
    no_psum.psum = nullptr;
    EXPECT_THROW(read_tile(psum(DType::Fp32, 0, 1, 0, {}), no_psum), SemanticsError);
    EXPECT_THROW(write_tile(sbuf_tile(DType::Fp32, 0, 2, 0, 4), blank_tile(2, 3), s), SemanticsError);
    EXPECT_THROW(copy_elements(sbuf_tile(DType::Fp32, 0, 2, 0, 4), sbuf_tile(DType::Fp32, 0, 2, 64, 5), s),
                 SemanticsError);
    try {
        read_tile(sbuf_tile(DType::Fp32, 0, 1, kSbufPartitionBytes - 8, 4), s);
    } catch (const SemanticsError& e) {
        EXPECT_STREQ(e.what(), "sbuf operand: bytes [65528, 65544) of each partition outside its 65536 bytes");
    }
}

// What a DMA writes one descriptor for (contiguous_runs): each SBUF partition is its own memory, so
// a row per partition at least; a dense tensor region is one run however many rows it has.
TEST(ContiguousRuns, EveryPartitionRowIsARunOfItsOwn) {
    EXPECT_EQ(contiguous_runs(sbuf_tile(DType::Bf16, 0, 8, 0, 768)), 8u);
    EXPECT_EQ(contiguous_runs(sbuf_tile(DType::Fp32, 0, 128, 0, 1)), 128u);
    // Two free steps of 16 contiguous elements each, 32 apart: two runs per partition.
    EXPECT_EQ(contiguous_runs(sbuf(DType::Fp32, 0, 4, 0, {{32, 2}, {1, 16}})), 8u);
    // An outer dimension that continues the inner one and a size-1 dimension merge into one run.
    EXPECT_EQ(contiguous_runs(sbuf(DType::Fp32, 0, 4, 0, {{16, 2}, {5, 1}, {1, 16}})), 4u);
    // Strided innermost: every element is a run.
    EXPECT_EQ(contiguous_runs(sbuf(DType::Fp32, 0, 2, 0, {{2, 10}})), 20u);
}

TEST(ContiguousRuns, DenseTensorRowsThatFollowEachOtherAreOneRun) {
    // Whole rows of a [8, 768] bf16 matrix: one run.
    EXPECT_EQ(contiguous_runs(tensor(MemorySpace::Dram, DType::Bf16, 0, 8, 768, 0, {{1, 768}})), 1u);
    // 512 of its 768 columns: a run per row.
    EXPECT_EQ(contiguous_runs(tensor(MemorySpace::Dram, DType::Bf16, 0, 8, 768, 0, {{1, 512}})), 8u);
    // Rows repeated (stride 0, a broadcast): a run per row.
    EXPECT_EQ(contiguous_runs(tensor(MemorySpace::Host, DType::Fp32, 0, 8, 0, 0, {{1, 768}})), 8u);
}

}  // namespace
}  // namespace nsim::sim::core::test
