// WordPiece: each word becomes the longest vocabulary entry that starts it, then the longest "##"
// continuation, and so on; a word that cannot be covered, or is longer than max_chars code points,
// becomes [UNK] as a whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/wordpiece_vocab.h"

namespace nsim::kernels {

// transformers' max_input_chars_per_word.
inline constexpr size_t kWordPieceMaxChars = 100;

// Appends the word's pieces (as ids) to `out`.
void wordpiece_split(const std::string& word, const WordPieceVocab& vocab, std::vector<int32_t>& out,
                     size_t max_chars = kWordPieceMaxChars);

}  // namespace nsim::kernels
