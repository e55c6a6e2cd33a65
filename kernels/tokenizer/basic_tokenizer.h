// BERT's basic tokenizer (transformers' BasicTokenizer): cleans the text, isolates CJK ideographs,
// splits on whitespace, lower-cases and strips accents, and splits off every punctuation character.
// Its words are what WordPiece then cuts into pieces.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsim::kernels {

struct BasicTokenizerOptions {
    bool lower_case = true;
    // nullopt: strip accents exactly when lower-casing (transformers' default for uncased models).
    std::optional<bool> strip_accents;
    bool split_cjk_ideographs = true;
    // Whitespace-separated words kept whole and untouched, e.g. "[CLS]" typed in the text.
    std::vector<std::string> never_split{"[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"};
};

// UTF-8 in, UTF-8 words out.
std::vector<std::string> basic_tokenize(std::string_view text, const BasicTokenizerOptions& options = {});

}  // namespace nsim::kernels
