#include "assembly_tokens.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace nsim::isa {

void TokenReader::fail(uint32_t column, const std::string& message) const {
    throw AssemblyError(file_, {line_, column}, message);
}

void TokenReader::read_line(std::string_view text) {
    ++line_;
    tokens_.clear();
    pos_ = 0;
    size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        const uint32_t column = uint32_t(i + 1);
        if (c == ' ' || c == '\t') {
            ++i;
        } else if (c == '#' || c == ';') {
            break;
        } else if (is_name_start(c) || (c == '.' && i + 1 < text.size() && is_name_start(text[i + 1]))) {
            size_t j = i + 1;
            while (j < text.size() && is_name_char(text[j])) ++j;
            tokens_.push_back({TokenKind::Name, std::string(text.substr(i, j - i)), column});
            i = j;
        } else if (is_digit(c) || (c == '-' && i + 1 < text.size() && (is_digit(text[i + 1]) || text[i + 1] == '.'))) {
            size_t j = i + 1;
            const bool hex = text.substr(i).rfind("0x", 0) == 0 || text.substr(i).rfind("-0x", 0) == 0;
            while (j < text.size()) {
                const char d = text[j];
                const char prev = text[j - 1];
                if (is_alnum(d) || d == '.' || (!hex && (d == '+' || d == '-') && (prev == 'e' || prev == 'E')))
                    ++j;
                else
                    break;
            }
            tokens_.push_back({TokenKind::Number, std::string(text.substr(i, j - i)), column});
            i = j;
        } else if (c == '"') {
            std::string value;
            size_t j = i + 1;
            for (;; ++j) {
                if (j >= text.size()) fail(column, "unterminated string");
                if (text[j] == '"') break;
                if (text[j] != '\\') {
                    value += text[j];
                    continue;
                }
                if (++j >= text.size()) fail(column, "unterminated string");
                if (text[j] == 'x') {
                    const int hi = j + 1 < text.size() ? hex_value(text[j + 1]) : -1;
                    const int lo = j + 2 < text.size() ? hex_value(text[j + 2]) : -1;
                    if (hi < 0 || lo < 0) fail(uint32_t(j), "\\x needs two hex digits");
                    value += char(hi * 16 + lo);
                    j += 2;
                } else if (text[j] == '"' || text[j] == '\\') {
                    value += text[j];
                } else if (text[j] == 'n') {
                    value += '\n';
                } else if (text[j] == 't') {
                    value += '\t';
                } else {
                    fail(uint32_t(j), std::string("unknown escape \\") + text[j]);
                }
            }
            tokens_.push_back({TokenKind::String, value, column});
            i = j + 1;
        } else if (c == '>' && i + 1 < text.size() && text[i + 1] == '=') {
            tokens_.push_back({TokenKind::Punct, ">=", column});
            i += 2;
        } else if (std::strchr("[]:,=+$", c)) {
            tokens_.push_back({TokenKind::Punct, std::string(1, c), column});
            ++i;
        } else {
            fail(column, std::string("unexpected character '") + c + "'");
        }
    }
    tokens_.push_back({TokenKind::End, "", uint32_t(text.size() + 1)});
}

const Token& TokenReader::next() {
    const Token& t = tokens_[pos_];
    if (t.kind != TokenKind::End) ++pos_;
    return t;
}

bool TokenReader::accept(const char* punct) {
    if (peek().kind == TokenKind::Punct && peek().text == punct) {
        ++pos_;
        return true;
    }
    return false;
}

void TokenReader::expect(const char* punct) {
    if (!accept(punct)) fail(peek(), std::string("expected '") + punct + "'" + found());
}

std::string TokenReader::found() const {
    if (peek().kind == TokenKind::End) return ", found end of line";
    return ", found '" + peek().text + "'";
}

void TokenReader::expect_end() {
    if (peek().kind != TokenKind::End) fail(peek(), "unexpected '" + peek().text + "' at end of statement");
}

std::string TokenReader::name(const char* what) {
    const Token& t = peek();
    if (t.kind != TokenKind::Name && t.kind != TokenKind::String) fail(t, std::string("expected ") + what + found());
    if (t.kind == TokenKind::String && t.text.empty()) fail(t, std::string("empty ") + what);
    return next().text;
}

std::string TokenReader::string_value(const char* what) {
    if (peek().kind != TokenKind::String) fail(peek(), std::string("expected ") + what + " in double quotes" + found());
    return next().text;
}

int64_t TokenReader::integer(const char* what, int64_t low, int64_t high) {
    const Token& t = peek();
    if (t.kind != TokenKind::Number) fail(t, std::string("expected ") + what + found());
    const std::string& s = t.text;
    const bool negative = s[0] == '-';
    const std::string digits = negative ? s.substr(1) : s;
    const bool hex = digits.rfind("0x", 0) == 0 || digits.rfind("0X", 0) == 0;
    const std::string body = hex ? digits.substr(2) : digits;
    if (body.empty()) fail(t, "bad number '" + s + "'");
    unsigned __int128 value = 0;
    for (char c : body) {
        const int d = hex ? hex_value(c) : (is_digit(c) ? c - '0' : -1);
        if (d < 0) fail(t, "bad number '" + s + "'");
        value = value * (hex ? 16 : 10) + unsigned(d);
        if (value > (unsigned __int128)(1) << 64) fail(t, std::string(what) + " '" + s + "' out of range");
    }
    const __int128 signed_value = negative ? -__int128(value) : __int128(value);
    if (signed_value < low || signed_value > high)
        fail(t, std::string(what) + " " + s + " out of range [" + std::to_string(low) + ", " +
                    std::to_string(high) + "]");
    next();
    return int64_t(signed_value);
}

uint64_t TokenReader::unsigned64(const char* what) {
    // uint64 values above int64 max are only written in hex by the disassembler; accept them too.
    const Token& t = peek();
    if (t.kind == TokenKind::Number && t.text.rfind("0x", 0) == 0 && t.text.size() > 2 && t.text.size() <= 18) {
        uint64_t v = 0;
        for (char c : t.text.substr(2)) {
            const int d = hex_value(c);
            if (d < 0) fail(t, "bad number '" + t.text + "'");
            v = v * 16 + unsigned(d);
        }
        next();
        return v;
    }
    if (t.kind == TokenKind::Number && t.text[0] != '-' && t.text.rfind("0x", 0) != 0) {
        errno = 0;
        char* end = nullptr;
        const unsigned long long v = std::strtoull(t.text.c_str(), &end, 10);
        if (errno || *end) fail(t, std::string("bad ") + what + " '" + t.text + "'");
        next();
        return v;
    }
    return uint64_t(integer(what, 0, std::numeric_limits<int64_t>::max()));
}

}  // namespace nsim::isa
