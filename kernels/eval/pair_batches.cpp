#include "eval/pair_batches.h"

#include <algorithm>

#include "common/input_error.h"

namespace nsim::kernels {

PairBatches batch_sentence_pairs(const BertTokenizer& tokenizer, const std::vector<SentencePair>& pairs, size_t seq,
                                 size_t rows) {
    if (rows == 0) throw InputError("batch_sentence_pairs: batches of 0 rows");
    // The padding sequence: two empty sentences, i.e. [CLS] [SEP] [SEP] and [PAD]s.
    const EncodedInput dummy = tokenizer.encode_pair("", "", seq);
    PairBatches out;
    for (size_t first = 0; first < pairs.size(); first += rows) {
        PairBatch batch;
        batch.first_pair = first;
        batch.pairs = std::min(rows, pairs.size() - first);
        std::vector<EncodedInput> encoded;
        for (size_t i = first; i < first + batch.pairs; ++i) {
            encoded.push_back(tokenizer.encode_pair(pairs[i].a, pairs[i].b, seq));
            out.truncated += encoded.back().truncated;
        }
        out.padding_rows += rows - batch.pairs;
        encoded.resize(rows, dummy);
        batch.tokens = make_token_batch(encoded);
        out.batches.push_back(std::move(batch));
    }
    return out;
}

}  // namespace nsim::kernels
