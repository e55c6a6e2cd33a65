// Reference gradient of an embedding lookup (rows of a table gathered by token id): the rows of dL/dy
// scatter-added into the table's rows, in double.
#pragma once

#include <cstdint>
#include <vector>

#include "bert/tensor.h"

namespace nsim::kernels::reference {

// dy [tokens, hidden], ids one per token in [0, rows) -> [rows, hidden].
Tensor embedding_backward(const std::vector<int32_t>& ids, const Tensor& dy, size_t rows);

}  // namespace nsim::kernels::reference
