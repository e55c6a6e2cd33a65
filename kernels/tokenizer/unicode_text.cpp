#include "tokenizer/unicode_text.h"

#include <stdexcept>

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

namespace nsim::kernels::unicode {
namespace {

constexpr char32_t kReplacementCharacter = 0xFFFD;

icu::UnicodeString to_icu(std::u32string_view text) {
    return icu::UnicodeString::fromUTF32(reinterpret_cast<const UChar32*>(text.data()),
                                         static_cast<int32_t>(text.size()));
}

std::u32string from_icu(const icu::UnicodeString& text) {
    std::u32string out;
    for (int32_t i = 0; i < text.length(); i = text.moveIndex32(i, 1)) out.push_back(static_cast<char32_t>(text.char32At(i)));
    return out;
}

const icu::Normalizer2& normalizer(bool compose) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* n =
        compose ? icu::Normalizer2::getNFCInstance(status) : icu::Normalizer2::getNFDInstance(status);
    if (U_FAILURE(status) || !n) throw std::runtime_error("ICU normalizer data is not available");
    return *n;
}

icu::UnicodeString normalize(std::u32string_view text, bool compose) {
    UErrorCode status = U_ZERO_ERROR;
    icu::UnicodeString out = normalizer(compose).normalize(to_icu(text), status);
    if (U_FAILURE(status)) throw std::runtime_error("ICU normalization failed");
    return out;
}

bool in_category(char32_t c, uint32_t mask) { return (U_GET_GC_MASK(static_cast<UChar32>(c)) & mask) != 0; }

}  // namespace

std::u32string decode_utf8(std::string_view text) {
    std::u32string out;
    out.reserve(text.size());
    const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
    const auto length = static_cast<int32_t>(text.size());
    for (int32_t i = 0; i < length;) {
        UChar32 c;
        U8_NEXT(bytes, i, length, c);
        out.push_back(c < 0 ? kReplacementCharacter : static_cast<char32_t>(c));
    }
    return out;
}

std::string encode_utf8(std::u32string_view text) {
    std::string out;
    to_icu(text).toUTF8String(out);
    return out;
}

bool is_whitespace(char32_t c) {
    return c == U' ' || c == U'\t' || c == U'\n' || c == U'\r' || in_category(c, U_GC_ZS_MASK);
}

bool is_control(char32_t c) {
    if (c == U'\t' || c == U'\n' || c == U'\r') return false;
    return in_category(c, U_GC_C_MASK);
}

bool is_punctuation(char32_t c) {
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
    return in_category(c, U_GC_P_MASK);
}

bool is_cjk_ideograph(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

std::u32string to_lower(std::u32string_view text) {
    icu::UnicodeString s = to_icu(text);
    s.toLower(icu::Locale::getRoot());
    return from_icu(s);
}

std::u32string strip_accents(std::u32string_view text) {
    const icu::UnicodeString decomposed = normalize(text, false);
    std::u32string out;
    for (char32_t c : from_icu(decomposed))
        if (!in_category(c, U_GC_MN_MASK)) out.push_back(c);
    return out;
}

std::u32string to_nfc(std::u32string_view text) { return from_icu(normalize(text, true)); }

}  // namespace nsim::kernels::unicode
