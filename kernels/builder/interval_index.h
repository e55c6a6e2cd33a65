// The intervals [lo, hi) of one address space (an on-chip memory), by id, and which of them overlap
// a given interval - without scanning them all.
//
// The address space is cut into buckets of a fixed size; an interval is listed in every bucket from
// the one holding lo to the one holding its last byte (or lo, when it is empty). Two intervals that
// overlap share a bucket, so a query looks only at the buckets its own interval spans, and reports an
// interval in the first bucket the two share, so that it reports it once. On-chip memories are small
// (hundreds of KiB per partition) and their buffers a few KiB, so a bucket holds few intervals that
// do not overlap the query, and a query costs about what it returns.
//
// Overlap is the builder's own test: a.lo < b.hi && b.lo < a.hi (an empty interval overlaps those
// that hold bytes on both sides of it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nsim::kernels::builder {

class IntervalIndex {
public:
    explicit IntervalIndex(uint64_t bucket_bytes = 1024);

    // Adds interval `id` (not already present). Cheapest when ids come in increasing order.
    void insert(uint32_t id, uint64_t lo, uint64_t hi);
    // Removes interval `id` (no effect if absent).
    void erase(uint32_t id);
    bool contains(uint32_t id) const { return id < intervals_.size() && intervals_[id].present; }
    size_t size() const { return size_; }

    // The ids of the intervals overlapping [lo, hi), in increasing order.
    std::vector<uint32_t> overlapping(uint64_t lo, uint64_t hi) const;
    // The ids of the intervals with lo >= `from`, in increasing order.
    std::vector<uint32_t> starting_from(uint64_t from) const;

private:
    struct Interval {
        uint64_t lo = 0, hi = 0;
        bool present = false;
    };
    size_t first_bucket(const Interval& i) const { return size_t(i.lo / bucket_bytes_); }
    size_t last_bucket(const Interval& i) const { return size_t((i.hi > i.lo ? i.hi - 1 : i.lo) / bucket_bytes_); }

    uint64_t bucket_bytes_;
    std::vector<Interval> intervals_;             // by id
    std::vector<std::vector<uint32_t>> buckets_;  // ids listed in each bucket, increasing
    size_t size_ = 0;
};

}  // namespace nsim::kernels::builder
