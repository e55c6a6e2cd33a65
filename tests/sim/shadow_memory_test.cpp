// The race checker's shadow memory over SBUF-like regions (the same bytes of consecutive partitions):
// what each update sees, piece by piece, after earlier regions overlapped it in bytes, in partitions,
// or both; and that bytes of untouched partitions stay fresh.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "race_check/shadow_memory.h"

namespace nsim::sim::race_check {
namespace {

constexpr uint64_t address(uint64_t partition, uint64_t byte) { return (partition << 32) + byte; }

// Writes `region` as queue `queue`'s instruction 0.
void write(ShadowMemory& shadow, const Region& region, int32_t queue) {
    shadow.update(region, [&](ByteState& b, uint64_t) {
        b.written = true;
        b.last_write = {queue, 0};
    });
}

// What an update over `region` sees: each piece's first byte and its last writer (-1: never written).
std::vector<std::pair<uint64_t, int32_t>> writers(ShadowMemory& shadow, const Region& region) {
    std::vector<std::pair<uint64_t, int32_t>> seen;
    shadow.update(region, [&](ByteState& b, uint64_t at) { seen.emplace_back(at, b.written ? b.last_write.queue : -1); });
    return seen;
}

TEST(ShadowMemory, ARegionOverEveryPartitionIsOnePieceUntilAPartOfItChanges) {
    ShadowMemory shadow;
    write(shadow, {0, 128, {0, 64}}, 1);
    EXPECT_EQ(writers(shadow, {0, 128, {0, 64}}), (std::vector<std::pair<uint64_t, int32_t>>{{address(0, 0), 1}}));

    // Queue 2 writes bytes 32..96 of partitions 10..20: over the old tile in bytes 32..64 only.
    write(shadow, {10, 20, {32, 96}}, 2);
    EXPECT_EQ(writers(shadow, {0, 128, {0, 96}}),
              (std::vector<std::pair<uint64_t, int32_t>>{
                  {address(0, 0), 1},                                                // bytes 0..32: untouched by queue 2
                  {address(0, 32), 1}, {address(10, 32), 2}, {address(20, 32), 1},   // bytes 32..64
                  {address(0, 64), -1}, {address(10, 64), 2}, {address(20, 64), -1}, // bytes 64..96
              }));
}

TEST(ShadowMemory, PiecesThatAgreeAgainMerge) {
    ShadowMemory shadow;
    write(shadow, {0, 128, {0, 64}}, 1);
    write(shadow, {10, 20, {32, 64}}, 2);
    write(shadow, {0, 128, {0, 64}}, 3);   // over all of it: one state again
    EXPECT_EQ(writers(shadow, {0, 128, {0, 64}}), (std::vector<std::pair<uint64_t, int32_t>>{{address(0, 0), 3}}));
    // Partitions written one at a time are one piece once they agree.
    ShadowMemory rows;
    for (uint64_t p = 0; p < 128; ++p) write(rows, {p, p + 1, {0, 16}}, 4);
    EXPECT_EQ(writers(rows, {0, 128, {0, 16}}), (std::vector<std::pair<uint64_t, int32_t>>{{address(0, 0), 4}}));
}

TEST(ShadowMemory, DeviceMemoryIsBytesOfOnePartition) {
    ShadowMemory shadow;
    write(shadow, {0, 1, {0x100, 0x200}}, 5);
    EXPECT_EQ(writers(shadow, {0, 1, {0x80, 0x180}}),
              (std::vector<std::pair<uint64_t, int32_t>>{{0x80, -1}, {0x100, 5}}));
}

}  // namespace
}  // namespace nsim::sim::race_check
