#include "builder/interval_index.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nsim::kernels::builder {

IntervalIndex::IntervalIndex(uint64_t bucket_bytes) : bucket_bytes_(bucket_bytes) {
    if (bucket_bytes == 0) throw std::logic_error("IntervalIndex: buckets of zero bytes");
}

void IntervalIndex::insert(uint32_t id, uint64_t lo, uint64_t hi) {
    if (contains(id)) throw std::logic_error("IntervalIndex: interval " + std::to_string(id) + " is already present");
    if (id >= intervals_.size()) intervals_.resize(size_t(id) + 1);
    Interval& interval = intervals_[id];
    interval = Interval{lo, hi, true};
    const size_t last = last_bucket(interval);
    if (last >= buckets_.size()) buckets_.resize(last + 1);
    for (size_t b = first_bucket(interval); b <= last; ++b) {
        std::vector<uint32_t>& ids = buckets_[b];
        if (ids.empty() || ids.back() < id)
            ids.push_back(id);
        else
            ids.insert(std::lower_bound(ids.begin(), ids.end(), id), id);
    }
    ++size_;
}

void IntervalIndex::erase(uint32_t id) {
    if (!contains(id)) return;
    Interval& interval = intervals_[id];
    for (size_t b = first_bucket(interval), last = last_bucket(interval); b <= last; ++b) {
        std::vector<uint32_t>& ids = buckets_[b];
        ids.erase(std::lower_bound(ids.begin(), ids.end(), id));
    }
    interval.present = false;
    --size_;
}

std::vector<uint32_t> IntervalIndex::overlapping(uint64_t lo, uint64_t hi) const {
    std::vector<uint32_t> out;
    const Interval query{lo, hi, true};
    const size_t first = first_bucket(query);
    const size_t last = std::min(last_bucket(query), buckets_.empty() ? 0 : buckets_.size() - 1);
    for (size_t b = first; b <= last && b < buckets_.size(); ++b)
        for (uint32_t id : buckets_[b]) {
            const Interval& other = intervals_[id];
            if (std::max(first, first_bucket(other)) != b) continue;  // reported in an earlier bucket
            if (other.lo < hi && lo < other.hi) out.push_back(id);
        }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<uint32_t> IntervalIndex::starting_from(uint64_t from) const {
    std::vector<uint32_t> out;
    for (size_t b = size_t(from / bucket_bytes_); b < buckets_.size(); ++b)
        for (uint32_t id : buckets_[b]) {
            const Interval& other = intervals_[id];
            if (first_bucket(other) == b && other.lo >= from) out.push_back(id);
        }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace nsim::kernels::builder
