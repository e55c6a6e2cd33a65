// Sentence pairs cut into a compiled model's batches: every pair once, in file order, as the
// tokenizer encodes it alone; the last batch filled with [CLS] [SEP] [SEP] rows that are counted as
// padding, not as pairs.
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "eval/pair_batches.h"
#include "kernels_test_support.h"

namespace nsim::kernels {
namespace {

std::vector<SentencePair> mrpc_pairs(size_t count) {
    std::vector<SentencePair> pairs = read_sentence_pairs(testing::shared_data("mrpc/glue_mrpc_dev.tsv")).pairs;
    pairs.resize(count);
    return pairs;
}

TEST(PairBatches, EveryPairOnceInOrderAndTheLastBatchPadded) {
    const BertTokenizer tokenizer(WordPieceVocab::load(testing::vocab_path()));
    const std::vector<SentencePair> pairs = mrpc_pairs(7);
    constexpr size_t kSeq = 24, kRows = 3;
    const PairBatches out = batch_sentence_pairs(tokenizer, pairs, kSeq, kRows);
    ASSERT_EQ(out.batches.size(), 3u);
    EXPECT_EQ(out.padding_rows, 2u);
    size_t truncated = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
        const PairBatch& batch = out.batches[i / kRows];
        EXPECT_EQ(batch.first_pair, i / kRows * kRows);
        const EncodedInput alone = tokenizer.encode_pair(pairs[i].a, pairs[i].b, kSeq);
        truncated += alone.truncated;
        const size_t row = (i % kRows) * kSeq;
        EXPECT_EQ(std::vector<int32_t>(batch.tokens.input_ids.begin() + row, batch.tokens.input_ids.begin() + row + kSeq),
                  alone.input_ids) << "pair " << i;
        EXPECT_EQ(std::vector<int32_t>(batch.tokens.token_type_ids.begin() + row,
                                       batch.tokens.token_type_ids.begin() + row + kSeq),
                  alone.token_type_ids);
        EXPECT_EQ(std::vector<int32_t>(batch.tokens.attention_mask.begin() + row,
                                       batch.tokens.attention_mask.begin() + row + kSeq),
                  alone.attention_mask);
    }
    EXPECT_EQ(out.truncated, truncated);
    EXPECT_GT(truncated, 0u) << "24 tokens should cut some MRPC pairs";
    EXPECT_EQ(out.batches[0].pairs, 3u);
    const PairBatch& last = out.batches.back();
    EXPECT_EQ(last.pairs, 1u);
    EXPECT_EQ(last.tokens.batch, kRows);
    const WordPieceVocab& v = tokenizer.vocab();
    for (size_t row = 1; row < kRows; ++row) {
        const int32_t* ids = &last.tokens.input_ids[row * kSeq];
        EXPECT_EQ(ids[0], v.cls_id());
        EXPECT_EQ(ids[1], v.sep_id());
        EXPECT_EQ(ids[2], v.sep_id());
        EXPECT_EQ(ids[3], v.pad_id());
    }
}

TEST(PairBatches, ExactMultipleHasNoPaddingAndZeroRowsIsAnError) {
    const BertTokenizer tokenizer(WordPieceVocab::load(testing::vocab_path()));
    const PairBatches out = batch_sentence_pairs(tokenizer, mrpc_pairs(4), 128, 2);
    EXPECT_EQ(out.batches.size(), 2u);
    EXPECT_EQ(out.padding_rows, 0u);
    EXPECT_EQ(out.truncated, 0u);
    EXPECT_THROW(batch_sentence_pairs(tokenizer, mrpc_pairs(4), 128, 0), InputError);
}

}  // namespace
}  // namespace nsim::kernels
