// The builder's interval index against a brute-force scan: random intervals (empty ones, ones that
// span many buckets, touching ones) inserted, erased and queried, the answers compared id for id.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>

#include "builder/interval_index.h"

namespace nsim::kernels::builder {
namespace {

using Intervals = std::map<uint32_t, std::pair<uint64_t, uint64_t>>;

// The builder's overlap test, applied to every interval.
std::vector<uint32_t> scan_overlapping(const Intervals& all, uint64_t lo, uint64_t hi) {
    std::vector<uint32_t> out;
    for (const auto& [id, range] : all)
        if (range.first < hi && lo < range.second) out.push_back(id);
    return out;
}

std::vector<uint32_t> scan_starting_from(const Intervals& all, uint64_t from) {
    std::vector<uint32_t> out;
    for (const auto& [id, range] : all)
        if (range.first >= from) out.push_back(id);
    return out;
}

// An interval of a 4 KiB space: mostly short, sometimes empty, sometimes most of the space.
std::pair<uint64_t, uint64_t> random_interval(std::mt19937& rng) {
    const uint64_t lo = std::uniform_int_distribution<uint64_t>(0, 4096)(rng);
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    const uint64_t length = kind == 0 ? 0 : kind == 1 ? std::uniform_int_distribution<uint64_t>(0, 4096)(rng)
                                                      : std::uniform_int_distribution<uint64_t>(1, 200)(rng);
    return {lo, lo + length};
}

class IntervalIndexAgainstScan : public ::testing::TestWithParam<uint64_t> {};

TEST_P(IntervalIndexAgainstScan, AnswersAsAScanOfEveryIntervalDoes) {
    std::mt19937 rng(uint32_t(GetParam()) * 7919u + 1);
    IntervalIndex index(GetParam());
    Intervals all;
    uint32_t next_id = 0;
    for (int step = 0; step < 4000; ++step) {
        const int action = std::uniform_int_distribution<int>(0, 9)(rng);
        if (action < 4) {
            const auto [lo, hi] = random_interval(rng);
            // Mostly increasing ids (as the builder adds them), sometimes one given back earlier.
            uint32_t id = next_id++;
            if (action == 0 && !all.empty() && all.size() + 1 < next_id) {
                id = std::uniform_int_distribution<uint32_t>(0, next_id - 2)(rng);
                if (all.count(id)) id = next_id - 1;
            }
            index.insert(id, lo, hi);
            all[id] = {lo, hi};
        } else if (action < 6 && !all.empty()) {
            auto it = all.begin();
            std::advance(it, std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng));
            index.erase(it->first);
            all.erase(it);
        } else if (action < 9) {
            const auto [lo, hi] = random_interval(rng);
            ASSERT_EQ(index.overlapping(lo, hi), scan_overlapping(all, lo, hi)) << "query [" << lo << ", " << hi << ")";
        } else {
            const uint64_t from = std::uniform_int_distribution<uint64_t>(0, 4200)(rng);
            ASSERT_EQ(index.starting_from(from), scan_starting_from(all, from)) << "from " << from;
        }
        ASSERT_EQ(index.size(), all.size());
    }
}

INSTANTIATE_TEST_SUITE_P(BucketSizes, IntervalIndexAgainstScan, ::testing::Values(1, 7, 64, 1024, 100000));

TEST(IntervalIndex, AnEmptyIntervalOverlapsWhatHoldsBytesOnBothSidesOfIt) {
    IntervalIndex index(16);
    index.insert(0, 10, 40);
    index.insert(1, 32, 32);
    EXPECT_EQ(index.overlapping(32, 32), std::vector<uint32_t>{0});
    EXPECT_EQ(index.overlapping(0, 33), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(index.overlapping(32, 40), std::vector<uint32_t>{0});  // touching the empty one: no overlap
}

TEST(IntervalIndex, ErasingAnAbsentIntervalChangesNothingAndInsertingTwiceIsAnError) {
    IntervalIndex index;
    index.insert(3, 0, 100);
    index.erase(5);
    EXPECT_EQ(index.size(), 1u);
    EXPECT_THROW(index.insert(3, 0, 10), std::logic_error);
    index.erase(3);
    EXPECT_FALSE(index.contains(3));
    EXPECT_TRUE(index.overlapping(0, 100).empty());
}

}  // namespace
}  // namespace nsim::kernels::builder
