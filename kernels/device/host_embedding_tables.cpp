#include "device/host_embedding_tables.h"

#include <algorithm>
#include <utility>

#include "builder/program_builder.h"

namespace nsim::kernels::device {
namespace {

constexpr uint64_t kHostTensorAlignment = 64;

constexpr const char* kWord = "host.embeddings.word";
constexpr const char* kPosition = "host.embeddings.position";
constexpr const char* kTokenType = "host.embeddings.token_type";
constexpr const char* kLayerNorm = "host.embeddings.layer_norm";  // [2, hidden]: gamma, beta

uint64_t host_region_end(const isa::Container& program) {
    uint64_t end = 0;
    for (const isa::TensorInfo& t : program.tensors)
        if (t.location == isa::TensorLocation::Host) end = std::max(end, t.offset + t.size_bytes());
    return (end + kHostTensorAlignment - 1) / kHostTensorAlignment * kHostTensorAlignment;
}

void append(isa::Container& program, const char* name, const Tensor& values) {
    isa::TensorInfo t;
    t.name = name;
    t.role = isa::TensorRole::Weight;
    t.dtype = isa::DType::Fp32;
    t.location = isa::TensorLocation::Host;
    t.shape.assign(values.shape.begin(), values.shape.end());
    t.offset = host_region_end(program);
    t.data = builder::encode_values(values.values, isa::DType::Fp32);
    program.tensors.push_back(std::move(t));
}

const isa::TensorInfo* find(const isa::Container& program, const char* name) {
    for (const isa::TensorInfo& t : program.tensors)
        if (t.name == name && t.location == isa::TensorLocation::Host && t.dtype == isa::DType::Fp32 &&
            t.shape.size() == 2 && !t.data.empty())
            return &t;
    return nullptr;
}

Tensor to_tensor(const isa::TensorInfo& t) {
    return Tensor({size_t(t.shape[0]), size_t(t.shape[1])},
                  builder::decode_values(t.data.data(), t.data.size() / sizeof(float), isa::DType::Fp32));
}

}  // namespace

void add_host_embedding_tables(isa::Container& program, const BertEmbeddingWeights& tables) {
    append(program, kWord, tables.word);
    append(program, kPosition, tables.position);
    append(program, kTokenType, tables.token_type);
    const size_t hidden = tables.layer_norm.gamma.size();
    Tensor norm({2, hidden});
    std::copy(tables.layer_norm.gamma.values.begin(), tables.layer_norm.gamma.values.end(), norm.row(0));
    std::copy(tables.layer_norm.beta.values.begin(), tables.layer_norm.beta.values.end(), norm.row(1));
    append(program, kLayerNorm, norm);
}

std::optional<BertEmbeddingWeights> read_host_embedding_tables(const isa::Container& program) {
    const isa::TensorInfo *word = find(program, kWord), *position = find(program, kPosition),
                          *token_type = find(program, kTokenType), *norm = find(program, kLayerNorm);
    if (!word || !position || !token_type || !norm || norm->shape[0] != 2) return std::nullopt;
    const uint64_t hidden_size = word->shape[1];
    if (position->shape[1] != hidden_size || token_type->shape[1] != hidden_size || norm->shape[1] != hidden_size)
        return std::nullopt;
    BertEmbeddingWeights tables{to_tensor(*word), to_tensor(*position), to_tensor(*token_type), {}};
    const Tensor rows = to_tensor(*norm);
    const size_t hidden = rows.cols();
    tables.layer_norm.gamma = Tensor({hidden}, std::vector<float>(rows.row(0), rows.row(0) + hidden));
    tables.layer_norm.beta = Tensor({hidden}, std::vector<float>(rows.row(1), rows.row(1) + hidden));
    return tables;
}

}  // namespace nsim::kernels::device
