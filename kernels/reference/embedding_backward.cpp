#include "reference/embedding_backward.h"

#include <stdexcept>

#include <fmt/format.h>

namespace nsim::kernels::reference {

Tensor embedding_backward(const std::vector<int32_t>& ids, const Tensor& dy, size_t rows) {
    if (ids.size() != dy.rows())
        throw std::invalid_argument(fmt::format("embedding_backward: {} ids for dy {}", ids.size(),
                                                shape_to_string(dy.shape)));
    const size_t hidden = dy.cols();
    std::vector<double> sum(rows * hidden, 0.0);
    for (size_t t = 0; t < ids.size(); ++t) {
        if (ids[t] < 0 || size_t(ids[t]) >= rows)
            throw std::invalid_argument(fmt::format("embedding_backward: id {} outside [0, {})", ids[t], rows));
        for (size_t h = 0; h < hidden; ++h) sum[size_t(ids[t]) * hidden + h] += dy.at(t, h);
    }
    Tensor out({rows, hidden});
    for (size_t i = 0; i < sum.size(); ++i) out.values[i] = float(sum[i]);
    return out;
}

}  // namespace nsim::kernels::reference
