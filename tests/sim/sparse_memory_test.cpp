#include <gtest/gtest.h>

#include <vector>

#include "platform/sparse_memory.h"

namespace nsim::sim {
namespace {

TEST(SparseMemory, UnwrittenBytesReadAsZero) {
    SparseMemory m(uint64_t(1) << 40);  // 1 TiB costs nothing until written
    std::vector<uint8_t> out(100, 0xff);
    m.read(123456789, out.data(), out.size());
    EXPECT_EQ(out, std::vector<uint8_t>(100, 0));
    EXPECT_EQ(m.resident_bytes(), 0u);
}

TEST(SparseMemory, WritesSpanningPagesReadBack) {
    SparseMemory m(uint64_t(1) << 30);
    std::vector<uint8_t> in(200000);
    for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(i * 13 + 1);
    m.write(65536 - 7, in.data(), in.size());
    std::vector<uint8_t> out(in.size());
    m.read(65536 - 7, out.data(), out.size());
    EXPECT_EQ(out, in);
}

TEST(SparseMemory, ZerosNeedNoPageButOverwriteAResidentOne) {
    SparseMemory m(uint64_t(1) << 30);
    const std::vector<uint8_t> zeros(200000, 0), ones(100, 1);
    m.write(12345, zeros.data(), zeros.size());
    EXPECT_EQ(m.resident_bytes(), 0u);
    m.write(70000, ones.data(), ones.size());
    const uint64_t resident = m.resident_bytes();
    EXPECT_GT(resident, 0u);
    m.write(70000 + 10, zeros.data(), 50);
    EXPECT_EQ(m.resident_bytes(), resident);
    std::vector<uint8_t> out(100);
    m.read(70000, out.data(), out.size());
    for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i >= 10 && i < 60 ? 0 : 1) << i;
}

TEST(SparseMemory, HoldsComparesWrittenAndUnwrittenBytes) {
    SparseMemory m(uint64_t(1) << 30);
    std::vector<uint8_t> in(150000);
    for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(i * 7 + 3);
    m.write(65536 - 11, in.data(), in.size());
    EXPECT_TRUE(m.holds(65536 - 11, in.data(), in.size()));
    in[100000] ^= 1;
    EXPECT_FALSE(m.holds(65536 - 11, in.data(), in.size()));
    const std::vector<uint8_t> zeros(70000, 0), one(1, 1);
    EXPECT_TRUE(m.holds(uint64_t(1) << 28, zeros.data(), zeros.size()));
    EXPECT_FALSE(m.holds(uint64_t(1) << 28, one.data(), one.size()));
    EXPECT_THROW(m.holds((uint64_t(1) << 30) - 1, zeros.data(), 2), std::out_of_range);
}

TEST(SparseMemory, OutOfRangeThrows) {
    SparseMemory m(4096);
    uint8_t b = 0;
    EXPECT_THROW(m.read(4096, &b, 1), std::out_of_range);
    EXPECT_THROW(m.write(4000, &b, 200), std::out_of_range);
    EXPECT_NO_THROW(m.write(4095, &b, 1));
}

}  // namespace
}  // namespace nsim::sim
