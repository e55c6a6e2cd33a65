// The embedding tables file neuron-build writes next to a host-embedding model: a round trip is exact,
// the names are Hugging Face's, and a file without a table or with tables of different widths is a
// one-line error naming it.
#include <gtest/gtest.h>

#include "bert/embedding_tables_file.h"
#include "bert/random_weights.h"
#include "bert/safetensors_reader.h"
#include "bert/safetensors_writer.h"
#include "kernels_test_support.h"
#include "small_bert.h"

namespace nsim::kernels {
namespace {

std::string tables_load_error(const std::filesystem::path& path) {
    return testing::input_error_of([&] { load_embedding_tables(path); });
}

TEST(EmbeddingTablesFile, RoundTripIsExactUnderHuggingFaceNames) {
    testing::ScratchDir dir;
    const BertEmbeddingWeights tables = *random_bert_weights(testing::small_bert_config(), 3).embeddings;
    save_embedding_tables(dir / "e.safetensors", tables);
    const SafetensorsReader reader(dir / "e.safetensors");
    ASSERT_EQ(reader.tensors().size(), 5u);
    EXPECT_NE(reader.find("bert.embeddings.word_embeddings.weight"), nullptr);
    EXPECT_NE(reader.find("bert.embeddings.LayerNorm.bias"), nullptr);
    const BertEmbeddingWeights back = load_embedding_tables(dir / "e.safetensors");
    EXPECT_EQ(back.word.shape, tables.word.shape);
    EXPECT_EQ(back.word.values, tables.word.values);
    EXPECT_EQ(back.position.values, tables.position.values);
    EXPECT_EQ(back.token_type.values, tables.token_type.values);
    EXPECT_EQ(back.layer_norm.gamma.values, tables.layer_norm.gamma.values);
    EXPECT_EQ(back.layer_norm.beta.values, tables.layer_norm.beta.values);
}

TEST(EmbeddingTablesFile, MissingOrMismatchedTablesAreOneLineErrors) {
    testing::ScratchDir dir;
    BertEmbeddingWeights tables = *random_bert_weights(testing::small_bert_config(), 3).embeddings;
    EXPECT_NE(tables_load_error(dir / "none.safetensors").find((dir / "none.safetensors").string()), std::string::npos);

    write_safetensors(dir / "partial.safetensors",
                      {make_safetensors_entry("bert.embeddings.word_embeddings.weight", tables.word)});
    EXPECT_NE(tables_load_error(dir / "partial.safetensors").find("missing tensor 'bert.embeddings.position_embeddings.weight'"),
              std::string::npos);

    tables.position = Tensor({16, 4});
    save_embedding_tables(dir / "narrow.safetensors", tables);
    const std::string narrow = tables_load_error(dir / "narrow.safetensors");
    EXPECT_NE(narrow.find("[16, 4] does not match the LayerNorm width 8"), std::string::npos) << narrow;
    EXPECT_EQ(narrow.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace nsim::kernels
