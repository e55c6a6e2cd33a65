// Pretraining micro-batches from sentence pairs, made on the host as BERT's create_pretraining_data.py
// makes them (the recipe the AWS BERT pretraining data comes from): each example is [CLS] a [SEP] b
// [SEP] where b is the pair's own second sentence (labelled "is next", 0) or, half of the time, the
// second sentence of another pair (labelled "random", 1); then 15 % of its tokens other than [CLS] /
// [SEP] / padding (at least one, at most max_predictions) are chosen for the masked-LM loss, each
// replaced by [MASK] 80 % of the time, by a random vocabulary token 10 %, kept 10 %. All choices come
// from one seeded std::mt19937_64 (its output is specified, so the batches are the same everywhere).
#pragma once

#include <cstdint>
#include <vector>

#include "bert/token_batch.h"
#include "eval/sentence_pairs.h"
#include "tokenizer/bert_tokenizer.h"

namespace nsim::kernels {

struct PretrainingBatch {
    TokenBatch tokens;                       // the masked input ids
    std::vector<int32_t> positions, labels;  // rows * max_predictions slots: position, original token (-1: unused)
    std::vector<float> weights;              // per slot: 1 / the batch's predictions, 0 for an unused slot
    std::vector<int32_t> next_sentence;      // per row: 0 = b follows a, 1 = b is random
};

struct PretrainingBatchOptions {
    size_t seq = 128, rows = 8, max_predictions = 20;
    double masked_fraction = 0.15;
    uint64_t seed = 12345;
};

// Full batches only (a last partial one is dropped). InputError when the vocabulary has no [MASK],
// rows or max_predictions is 0, or seq is under 3.
std::vector<PretrainingBatch> pretraining_batches(const BertTokenizer& tokenizer, const std::vector<SentencePair>& pairs,
                                                  const PretrainingBatchOptions& options);

}  // namespace nsim::kernels
