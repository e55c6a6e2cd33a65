// The Unicode facts BERT's basic tokenizer relies on, answered by ICU so that they agree with Python's
// unicodedata (categories, full lower-casing, canonical decomposition) rather than with a hand-made table.
#pragma once

#include <string>
#include <string_view>

namespace nsim::kernels::unicode {

// Invalid UTF-8 sequences become U+FFFD (which the basic tokenizer then drops, like Python's
// errors="replace" decoding).
std::u32string decode_utf8(std::string_view text);
std::string encode_utf8(std::u32string_view text);

// BERT's notions, which differ from the usual ones: tab/newline/CR count as whitespace, not control;
// every "C*" category is control; ASCII symbols such as $ + < = > ^ ` | ~ count as punctuation.
bool is_whitespace(char32_t c);
bool is_control(char32_t c);
bool is_punctuation(char32_t c);
// The CJK Unified Ideograph blocks BERT isolates as single-character words (not Hangul or kana).
bool is_cjk_ideograph(char32_t c);

// Full Unicode lower-casing in the root locale (Python's str.lower()).
std::u32string to_lower(std::u32string_view text);
// Canonical decomposition (NFD) with non-spacing marks (Mn) removed: "é" -> "e".
std::u32string strip_accents(std::u32string_view text);
// Canonical composition (NFC).
std::u32string to_nfc(std::u32string_view text);

}  // namespace nsim::kernels::unicode
