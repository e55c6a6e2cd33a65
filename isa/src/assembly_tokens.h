// The assembler's lexer: one line of assembly as tokens (names, numbers, strings, punctuation), and a
// cursor over them that reads what a statement expects (a name, an integer in range, a '[') and fails
// with file:line:column. The assembler (assembler.cpp) reads statements through it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "isa/text_format.h"
#include "text_names.h"

namespace nsim::isa {

enum class TokenKind { Name, Number, String, Punct, End };

struct Token {
    TokenKind kind = TokenKind::End;
    std::string text;   // strings: the decoded contents
    uint32_t column = 0;
};

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_alnum(char c) { return is_name_start(c) || is_digit(c); }

inline int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

class TokenReader {
protected:
    explicit TokenReader(std::string file) : file_(std::move(file)) {}

    // Makes `text`, the next line of the source, the one being read.
    void read_line(std::string_view text);
    uint32_t line() const { return line_; }

    [[noreturn]] void fail(uint32_t column, const std::string& message) const;
    [[noreturn]] void fail(const Token& at, const std::string& message) const { fail(at.column, message); }

    const Token& peek() const { return tokens_[pos_]; }
    const Token& next();
    bool accept(const char* punct);
    void expect(const char* punct);
    std::string found() const;  // ", found 'x'" or ", found end of line", for messages
    void expect_end();
    // A name: plain identifier or quoted string.
    std::string name(const char* what);
    std::string string_value(const char* what);
    // Integers: decimal or 0x hex, optionally negative, range-checked against [low, high].
    int64_t integer(const char* what, int64_t low, int64_t high);
    uint64_t unsigned64(const char* what);

private:
    std::string file_;
    std::vector<Token> tokens_;
    size_t pos_ = 0;
    uint32_t line_ = 0;
};

}  // namespace nsim::isa
