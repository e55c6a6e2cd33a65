#include "bert/embedding_tables_file.h"

#include <fstream>
#include <vector>

#include <boost/crc.hpp>
#include <fmt/format.h>

#include "bert/safetensors_reader.h"
#include "bert/safetensors_writer.h"
#include "common/input_error.h"

namespace nsim::kernels {
namespace {

// Weights holding only embeddings, so that the standard slot list names just those tensors.
BertWeights embeddings_only(BertEmbeddingWeights tables) {
    BertWeights weights;
    weights.embeddings = std::move(tables);
    return weights;
}

uint32_t file_crc32(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot open the embedding tables", path.string()));
    boost::crc_32_type crc;
    std::vector<char> chunk(1 << 20);
    while (in.read(chunk.data(), std::streamsize(chunk.size())) || in.gcount() > 0)
        crc.process_bytes(chunk.data(), size_t(in.gcount()));
    return crc.checksum();
}

}  // namespace

std::filesystem::path host_embedding_tables_path(const std::filesystem::path& model_file) {
    return std::filesystem::path(model_file).replace_extension(".embeddings.safetensors");
}

uint32_t save_embedding_tables(const std::filesystem::path& path, const BertEmbeddingWeights& tables) {
    BertWeights weights = embeddings_only(tables);
    std::vector<SafetensorsEntry> entries;
    for (const BertTensorSlot& slot : bert_tensor_slots(weights, true))
        if (slot.is_embedding) entries.push_back(make_safetensors_entry(slot.name, *slot.tensor));
    write_safetensors(path, entries);
    return file_crc32(path);
}

BertEmbeddingWeights load_embedding_tables(const std::filesystem::path& path, std::optional<uint32_t> expected_crc32) {
    const SafetensorsReader reader(path);
    if (expected_crc32 && file_crc32(path) != *expected_crc32)
        throw InputError(fmt::format("{}: not the embedding tables this model was built with (CRC-32 differs)", path.string()));
    BertWeights weights = embeddings_only({});
    for (const BertTensorSlot& slot : bert_tensor_slots(weights, true))
        if (slot.is_embedding) *slot.tensor = reader.read_float(slot.name);
    const BertEmbeddingWeights& e = *weights.embeddings;
    const size_t hidden = e.layer_norm.gamma.size();
    for (const Tensor* table : {&e.word, &e.position, &e.token_type})
        if (table->shape.size() != 2 || table->cols() != hidden)
            throw InputError(fmt::format("{}: embedding table {} does not match the LayerNorm width {}", path.string(),
                                         shape_to_string(table->shape), hidden));
    if (e.layer_norm.beta.size() != hidden || e.layer_norm.gamma.shape.size() != 1)
        throw InputError(fmt::format("{}: the embedding LayerNorm's weight and bias differ in shape", path.string()));
    return std::move(*weights.embeddings);
}

}  // namespace nsim::kernels
