// BERT's full tokenizer (basic tokenizer + WordPiece) and the model-input encoding of one sentence or a
// sentence pair: [CLS] a [SEP] (b [SEP]), segment ids, attention mask, truncation and padding to a
// fixed length - what transformers' tokenizer(a, b, max_length=N, truncation=True,
// padding="max_length") returns for an uncased BERT.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bert/token_batch.h"
#include "tokenizer/basic_tokenizer.h"
#include "tokenizer/wordpiece_vocab.h"

namespace nsim::kernels {

struct EncodedInput {
    std::vector<int32_t> input_ids;
    std::vector<int32_t> token_type_ids;
    std::vector<int32_t> attention_mask;
    size_t real_length = 0;  // tokens before padding
    bool truncated = false;
};

// Drops tokens from the end of the longer sequence, one at a time (from `b` when equal), until the two
// hold at most `max_tokens` together: transformers' "longest_first".
void truncate_longest_first(std::vector<int32_t>& a, std::vector<int32_t>& b, size_t max_tokens);

class BertTokenizer {
public:
    explicit BertTokenizer(WordPieceVocab vocab, BasicTokenizerOptions options = {});

    const WordPieceVocab& vocab() const { return vocab_; }
    std::vector<int32_t> tokenize_to_ids(std::string_view text) const;
    // The pieces as text ("un", "##fl", ...), for messages and tests.
    std::vector<std::string> tokenize(std::string_view text) const;

    // Padded with [PAD] (mask 0, segment 0) to exactly max_length. InputError if max_length < 3.
    EncodedInput encode_pair(std::string_view a, std::string_view b, size_t max_length) const;
    EncodedInput encode_single(std::string_view a, size_t max_length) const;

private:
    EncodedInput assemble(std::vector<int32_t> a, std::vector<int32_t>* b, size_t max_length) const;

    WordPieceVocab vocab_;
    BasicTokenizerOptions options_;
};

// Stacks encodings of one length into a batch; InputError when the lengths differ or there are none.
TokenBatch make_token_batch(const std::vector<EncodedInput>& inputs);

}  // namespace nsim::kernels
