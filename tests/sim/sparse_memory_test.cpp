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

TEST(SparseMemory, OutOfRangeThrows) {
    SparseMemory m(4096);
    uint8_t b = 0;
    EXPECT_THROW(m.read(4096, &b, 1), std::out_of_range);
    EXPECT_THROW(m.write(4000, &b, 200), std::out_of_range);
    EXPECT_NO_THROW(m.write(4095, &b, 1));
}

}  // namespace
}  // namespace nsim::sim
