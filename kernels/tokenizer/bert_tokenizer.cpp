#include "tokenizer/bert_tokenizer.h"

#include <fmt/format.h>

#include "common/input_error.h"
#include "tokenizer/wordpiece.h"

namespace nsim::kernels {

void truncate_longest_first(std::vector<int32_t>& a, std::vector<int32_t>& b, size_t max_tokens) {
    while (a.size() + b.size() > max_tokens) {
        if (a.size() > b.size())
            a.pop_back();
        else
            b.pop_back();
    }
}

BertTokenizer::BertTokenizer(WordPieceVocab vocab, BasicTokenizerOptions options)
    : vocab_(std::move(vocab)), options_(std::move(options)) {}

std::vector<int32_t> BertTokenizer::tokenize_to_ids(std::string_view text) const {
    std::vector<int32_t> ids;
    for (const std::string& word : basic_tokenize(text, options_)) wordpiece_split(word, vocab_, ids);
    return ids;
}

std::vector<std::string> BertTokenizer::tokenize(std::string_view text) const {
    std::vector<std::string> pieces;
    for (int32_t id : tokenize_to_ids(text)) pieces.push_back(vocab_.token(id));
    return pieces;
}

EncodedInput BertTokenizer::encode_pair(std::string_view a, std::string_view b, size_t max_length) const {
    std::vector<int32_t> second = tokenize_to_ids(b);
    return assemble(tokenize_to_ids(a), &second, max_length);
}

EncodedInput BertTokenizer::encode_single(std::string_view a, size_t max_length) const {
    return assemble(tokenize_to_ids(a), nullptr, max_length);
}

EncodedInput BertTokenizer::assemble(std::vector<int32_t> a, std::vector<int32_t>* b, size_t max_length) const {
    const size_t special = b ? 3 : 2;
    if (max_length < special)
        throw InputError(fmt::format("sequence length {} is too short: [CLS] and [SEP] alone need {}", max_length,
                                     special));
    std::vector<int32_t> none;
    std::vector<int32_t>& second = b ? *b : none;
    EncodedInput out;
    const size_t before = a.size() + second.size();
    truncate_longest_first(a, second, max_length - special);
    out.truncated = a.size() + second.size() < before;

    auto append = [&](int32_t id, int32_t segment) {
        out.input_ids.push_back(id);
        out.token_type_ids.push_back(segment);
        out.attention_mask.push_back(1);
    };
    append(vocab_.cls_id(), 0);
    for (int32_t id : a) append(id, 0);
    append(vocab_.sep_id(), 0);
    if (b) {
        for (int32_t id : second) append(id, 1);
        append(vocab_.sep_id(), 1);
    }
    out.real_length = out.input_ids.size();
    out.input_ids.resize(max_length, vocab_.pad_id());
    out.token_type_ids.resize(max_length, 0);
    out.attention_mask.resize(max_length, 0);
    return out;
}

TokenBatch make_token_batch(const std::vector<EncodedInput>& inputs) {
    if (inputs.empty()) throw InputError("make_token_batch: no sequences");
    TokenBatch batch;
    batch.batch = inputs.size();
    batch.seq_len = inputs.front().input_ids.size();
    for (const EncodedInput& input : inputs) {
        if (input.input_ids.size() != batch.seq_len)
            throw InputError(fmt::format("make_token_batch: sequences of length {} and {} cannot share a batch",
                                         batch.seq_len, input.input_ids.size()));
        batch.input_ids.insert(batch.input_ids.end(), input.input_ids.begin(), input.input_ids.end());
        batch.token_type_ids.insert(batch.token_type_ids.end(), input.token_type_ids.begin(),
                                    input.token_type_ids.end());
        batch.attention_mask.insert(batch.attention_mask.end(), input.attention_mask.begin(),
                                    input.attention_mask.end());
    }
    return batch;
}

}  // namespace nsim::kernels
