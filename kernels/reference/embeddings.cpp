#include "reference/embeddings.h"

#include <stdexcept>

#include <fmt/format.h>

#include "reference/layer_norm.h"

namespace nsim::kernels::reference {
namespace {

const float* table_row(const Tensor& table, int32_t id, const char* what) {
    if (id < 0 || static_cast<size_t>(id) >= table.rows())
        throw std::out_of_range(fmt::format("embeddings: {} {} outside the table's {} rows", what, id, table.rows()));
    return table.row(static_cast<size_t>(id));
}

}  // namespace

Tensor embeddings(const BertEmbeddingWeights& w, const TokenBatch& tokens, double layer_norm_eps) {
    const size_t hidden = w.word.cols();
    Tensor sum({tokens.batch * tokens.seq_len, hidden});
    for (size_t b = 0; b < tokens.batch; ++b) {
        for (size_t s = 0; s < tokens.seq_len; ++s) {
            const size_t t = b * tokens.seq_len + s;
            const float* word = table_row(w.word, tokens.input_ids[t], "token id");
            const float* position = table_row(w.position, static_cast<int32_t>(s), "position");
            const float* type = table_row(w.token_type, tokens.token_type_ids[t], "token type");
            float* out = sum.row(t);
            for (size_t i = 0; i < hidden; ++i) out[i] = word[i] + position[i] + type[i];
        }
    }
    return layer_norm(sum, w.layer_norm, layer_norm_eps);
}

}  // namespace nsim::kernels::reference
