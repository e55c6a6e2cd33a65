#include "tokenizer/basic_tokenizer.h"

#include <algorithm>

#include "tokenizer/unicode_text.h"

namespace nsim::kernels {
namespace {

// NULs, U+FFFD and control characters vanish; every kind of whitespace becomes a plain space.
std::u32string clean_and_space_cjk(std::u32string_view text, bool split_cjk) {
    std::u32string out;
    out.reserve(text.size());
    for (char32_t c : text) {
        if (c == 0 || c == 0xFFFD || unicode::is_control(c)) continue;
        if (unicode::is_whitespace(c)) {
            out.push_back(U' ');
        } else if (split_cjk && unicode::is_cjk_ideograph(c)) {
            out.push_back(U' ');
            out.push_back(c);
            out.push_back(U' ');
        } else {
            out.push_back(c);
        }
    }
    return out;
}

std::vector<std::u32string> split_on_whitespace(const std::u32string& text) {
    std::vector<std::u32string> words;
    std::u32string current;
    for (char32_t c : text) {
        if (unicode::is_whitespace(c)) {
            if (!current.empty()) words.push_back(std::move(current));
            current.clear();
        } else {
            current.push_back(c);
        }
    }
    if (!current.empty()) words.push_back(std::move(current));
    return words;
}

void split_on_punctuation(const std::u32string& word, std::vector<std::string>& out) {
    std::u32string current;
    for (char32_t c : word) {
        if (unicode::is_punctuation(c)) {
            if (!current.empty()) out.push_back(unicode::encode_utf8(current));
            current.clear();
            out.push_back(unicode::encode_utf8(std::u32string(1, c)));
        } else {
            current.push_back(c);
        }
    }
    if (!current.empty()) out.push_back(unicode::encode_utf8(current));
}

}  // namespace

std::vector<std::string> basic_tokenize(std::string_view text, const BasicTokenizerOptions& options) {
    const bool strip = options.strip_accents.value_or(options.lower_case);
    // NFC first so that one character typed as composed or decomposed tokenises the same.
    const std::u32string cleaned =
        unicode::to_nfc(clean_and_space_cjk(unicode::decode_utf8(text), options.split_cjk_ideographs));
    std::vector<std::string> tokens;
    for (std::u32string& word : split_on_whitespace(cleaned)) {
        const std::string utf8 = unicode::encode_utf8(word);
        if (std::find(options.never_split.begin(), options.never_split.end(), utf8) != options.never_split.end()) {
            tokens.push_back(utf8);
            continue;
        }
        if (options.lower_case) word = unicode::to_lower(word);
        if (strip) word = unicode::strip_accents(word);
        split_on_punctuation(word, tokens);
    }
    return tokens;
}

}  // namespace nsim::kernels
