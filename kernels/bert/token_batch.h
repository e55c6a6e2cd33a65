// The model's input for a batch of sequences of one length: token ids, segment ids and the attention
// mask, each [batch, seq_len] row-major - what the host hands the device (or the host-side embedding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nsim::kernels {

struct TokenBatch {
    size_t batch = 0;
    size_t seq_len = 0;
    std::vector<int32_t> input_ids;       // batch * seq_len
    std::vector<int32_t> token_type_ids;  // 0 for the first segment, 1 for the second
    std::vector<int32_t> attention_mask;  // 1 for real tokens, 0 for padding
};

}  // namespace nsim::kernels
