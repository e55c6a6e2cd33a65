#include "isa/access_pattern.h"

namespace nsim::isa {

uint64_t AccessPattern::free_elements() const {
    uint64_t n = 1;
    for (size_t d = 0; d < dim_count && d < kMaxFreeDims; ++d) n *= dims[d].count;
    return n;
}

// Each dimension contributes stride * (count - 1) at its far end; negative strides pull the
// minimum below zero, positive ones push the maximum up.
int64_t AccessPattern::min_free_index() const {
    int64_t low = 0;
    for (size_t d = 0; d < dim_count && d < kMaxFreeDims; ++d)
        if (dims[d].count > 0 && dims[d].stride < 0) low += int64_t(dims[d].stride) * (int64_t(dims[d].count) - 1);
    return low;
}

int64_t AccessPattern::max_free_index() const {
    int64_t high = 0;
    for (size_t d = 0; d < dim_count && d < kMaxFreeDims; ++d)
        if (dims[d].count > 0 && dims[d].stride > 0) high += int64_t(dims[d].stride) * (int64_t(dims[d].count) - 1);
    return high;
}

bool AccessPattern::operator==(const AccessPattern& o) const {
    return space == o.space && dtype == o.dtype && dim_count == o.dim_count && tensor == o.tensor &&
           partition_start == o.partition_start && partition_count == o.partition_count &&
           partition_stride == o.partition_stride && offset == o.offset && dims == o.dims;
}

}  // namespace nsim::isa
