#include "bert/tensor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace nsim::kernels {

size_t element_count(const Shape& shape) {
    size_t n = 1;
    for (size_t d : shape) n *= d;
    return n;
}

std::string shape_to_string(const Shape& shape) {
    return fmt::format("[{}]", fmt::join(shape, ", "));
}

}  // namespace nsim::kernels
