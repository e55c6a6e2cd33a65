#include "tokenizer/wordpiece.h"

#include "tokenizer/unicode_text.h"

namespace nsim::kernels {

void wordpiece_split(const std::string& word, const WordPieceVocab& vocab, std::vector<int32_t>& out,
                     size_t max_chars) {
    const std::u32string chars = unicode::decode_utf8(word);
    if (chars.size() > max_chars) {
        out.push_back(vocab.unk_id());
        return;
    }
    std::vector<int32_t> pieces;
    for (size_t start = 0; start < chars.size();) {
        std::optional<int32_t> match;
        size_t end = chars.size();
        for (; end > start; --end) {
            std::string piece = unicode::encode_utf8(std::u32string_view(chars).substr(start, end - start));
            if (start > 0) piece.insert(0, "##");
            if ((match = vocab.find(piece))) break;
        }
        if (!match) {
            out.push_back(vocab.unk_id());
            return;
        }
        pieces.push_back(*match);
        start = end;
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
}

}  // namespace nsim::kernels
