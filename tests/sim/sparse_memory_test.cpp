#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "platform/shared_pages.h"
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

// Pages of the same contents are shared between memories (the load's code on every core) and each
// memory still sees only its own writes.
TEST(SparseMemory, EqualPagesAreSharedAndCopiedOnWrite) {
    constexpr uint64_t page = SparseMemory::kPageBytes;
    SparseMemory a(uint64_t(1) << 30), b(uint64_t(1) << 30);
    std::vector<uint8_t> bytes(3 * page);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 31 + 5);
    a.write(page, bytes.data(), bytes.size());
    b.write(7 * page, bytes.data(), bytes.size());
    b.write(20 * page, bytes.data(), page);  // the first page again, in the same memory
    EXPECT_EQ(a.pages_shared(), 3u);
    EXPECT_EQ(b.pages_shared(), 4u);

    const uint8_t changed = 0xEE;
    b.write(7 * page + 100, &changed, 1);
    EXPECT_EQ(b.pages_shared(), 3u);
    EXPECT_TRUE(a.holds(page, bytes.data(), bytes.size()));
    EXPECT_TRUE(b.holds(20 * page, bytes.data(), page));
    std::vector<uint8_t> expected = bytes;
    expected[100] = changed;
    EXPECT_TRUE(b.holds(7 * page, expected.data(), expected.size()));

    // A page no longer shared is written in place; pages with other contents share nothing.
    std::vector<uint8_t> other(page, 0x5A);
    a.write(40 * page, other.data(), other.size());
    EXPECT_EQ(a.pages_shared(), 3u);
}

// Lent bytes (the runtime lends a program's code) back the pages that memories write with the same
// contents, and a write to such a page changes the memory's copy only, never the lender's bytes.
TEST(SparseMemory, LentBytesBackEqualPagesAndAreNeverWritten) {
    constexpr uint64_t page = SparseMemory::kPageBytes;
    auto lender = std::make_shared<std::vector<uint8_t>>(2 * page + 100);
    for (size_t i = 0; i < lender->size(); ++i) (*lender)[i] = uint8_t(i * 11 + 9);
    const std::vector<uint8_t> original = *lender;
    lend_pages(lender, lender->data(), lender->size());
    const long holders = lender.use_count();

    SparseMemory m(uint64_t(1) << 30);
    m.write(5 * page, original.data(), original.size());
    EXPECT_EQ(m.pages_shared(), 2u);              // the two whole pages; the 100-byte tail is its own
    EXPECT_EQ(lender.use_count(), holders + 2);  // held through the memory's pages
    const uint8_t changed = 0x42;
    m.write(5 * page + 7, &changed, 1);
    EXPECT_EQ(*lender, original);
    EXPECT_EQ(m.pages_shared(), 1u);
    std::vector<uint8_t> expected = original;
    expected[7] = changed;
    EXPECT_TRUE(m.holds(5 * page, expected.data(), expected.size()));
}

// A shared page written whole takes the new bytes (shared with whoever holds them) without
// changing the other holders of the old ones: the load's bounce buffer, whose pages device memory shares.
TEST(SparseMemory, SharedPageWrittenWholeLeavesOtherHoldersAlone) {
    constexpr uint64_t page = SparseMemory::kPageBytes;
    SparseMemory bounce(uint64_t(1) << 30), device(uint64_t(1) << 30);
    std::vector<uint8_t> first(page, 0x11), second(page);
    for (size_t i = 0; i < second.size(); ++i) second[i] = uint8_t(i * 3 + 1);
    bounce.write(page, first.data(), page);
    device.write(9 * page, first.data(), page);
    EXPECT_EQ(device.pages_shared(), 1u);
    bounce.write(page, second.data(), page);
    EXPECT_TRUE(bounce.holds(page, second.data(), page));
    EXPECT_TRUE(device.holds(9 * page, first.data(), page));
    EXPECT_EQ(device.pages_shared(), 0u);  // the old page is the device's alone now
    device.write(10 * page, second.data(), page);
    EXPECT_EQ(device.pages_shared(), 1u);  // the new page is the bounce buffer's
    EXPECT_EQ(bounce.pages_shared(), 1u);
    EXPECT_EQ(bounce.resident_bytes(), page);
}

// Pages far apart in a large memory (a terabyte: chunks of the page table made only where written).
TEST(SparseMemory, DistantPagesOfALargeMemory) {
    const uint64_t size = uint64_t(1) << 40;
    SparseMemory m(size);
    const uint8_t a = 1, b = 2;
    m.write(0, &a, 1);
    m.write(size - 1, &b, 1);
    uint8_t out = 0;
    m.read(size - 1, &out, 1);
    EXPECT_EQ(out, 2);
    m.read(0, &out, 1);
    EXPECT_EQ(out, 1);
    m.read(size / 2, &out, 1);
    EXPECT_EQ(out, 0);
    EXPECT_EQ(m.resident_bytes(), 2 * SparseMemory::kPageBytes);
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
