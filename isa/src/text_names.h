// How names and strings are written in assembly text, shared by assembler and disassembler.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace nsim::isa {

inline bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '.'; }

inline bool is_plain_name(std::string_view s) {
    if (s.empty() || !is_name_start(s[0])) return false;
    for (char c : s)
        if (!is_name_char(c)) return false;
    return true;
}

// A double-quoted string; bytes outside printable ASCII as \xNN so any bytes survive a round trip.
inline std::string quoted_text(std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20 || c >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out + "\"";
}

// Names that are not plain identifiers are written quoted.
inline std::string name_text(std::string_view s) { return is_plain_name(s) ? std::string(s) : quoted_text(s); }

}  // namespace nsim::isa
