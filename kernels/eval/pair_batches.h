// Sentence pairs cut into the fixed-shape batches a compiled model takes: each pair encoded as
// [CLS] a [SEP] b [SEP] with segment ids and attention mask, truncated longest-first and padded to
// the model's sequence length; `rows` sequences per batch (every copy's batch of one execution), the
// last batch filled up with dummy sequences that are not counted (as a server pads a short batch).
#pragma once

#include <cstddef>
#include <vector>

#include "bert/token_batch.h"
#include "eval/sentence_pairs.h"
#include "tokenizer/bert_tokenizer.h"

namespace nsim::kernels {

struct PairBatch {
    TokenBatch tokens;      // `rows` sequences
    size_t first_pair = 0;  // index in the pairs of the batch's first row
    size_t pairs = 0;       // real rows; the rows after them are padding
};

struct PairBatches {
    std::vector<PairBatch> batches;
    size_t truncated = 0;     // pairs that lost tokens to fit the sequence length
    size_t padding_rows = 0;  // dummy sequences in the last batch
};

// InputError when `rows` is 0 or `seq` is under 3 (no room for [CLS] and two [SEP]).
PairBatches batch_sentence_pairs(const BertTokenizer& tokenizer, const std::vector<SentencePair>& pairs, size_t seq,
                                 size_t rows);

}  // namespace nsim::kernels
