#include "npy_file.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace nsim::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kAlignment = 64;   // numpy pads the header so the data starts 64-byte aligned

// The value text of `key` in the header dict: from after "'key':" up to the next top-level comma or '}'.
std::string dict_value(const std::string& header, const std::string& key) {
    const std::string quoted[] = {"'" + key + "'", "\"" + key + "\""};
    size_t at = std::string::npos;
    for (const std::string& q : quoted)
        if ((at = header.find(q)) != std::string::npos) {
            at += q.size();
            break;
        }
    if (at == std::string::npos) throw NpyError("the .npy header has no '" + key + "'");
    at = header.find(':', at);
    if (at == std::string::npos) throw NpyError("the .npy header's '" + key + "' has no value");
    size_t end = at + 1;
    int depth = 0;
    for (; end < header.size(); ++end) {
        const char c = header[end];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (depth == 0 && (c == ',' || c == '}')) break;
    }
    std::string value = header.substr(at + 1, end - at - 1);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.erase(0, 1);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
    return value;
}

// "'<f4'" -> "<f4", with one-byte types' byte order written '|' as numpy does.
std::string parse_descr(std::string text) {
    if (text.size() < 3 || (text.front() != '\'' && text.front() != '"') || text.back() != text.front())
        throw NpyError("the .npy header's descr " + text + " is not a plain type string (structured arrays are not tensors)");
    std::string descr = text.substr(1, text.size() - 2);
    if (descr.size() < 3 || descr.find_first_not_of("0123456789", 2) != std::string::npos)
        throw NpyError("the .npy type '" + descr + "' is not a numeric type");
    if (descr[0] == '=') descr[0] = '<';   // native order; every host we run on is little-endian
    if (descr[0] == '>' && descr.substr(1) != "i1" && descr.substr(1) != "u1" && descr.substr(1) != "b1")
        throw NpyError("the .npy file is big-endian ('" + descr + "'); save it little-endian (arr.astype('<" + descr.substr(1) + "'))");
    if (descr.substr(2) == "1") descr[0] = '|';
    return descr;
}

std::vector<uint64_t> parse_shape(const std::string& text) {
    if (text.size() < 2 || text.front() != '(' || text.back() != ')') throw NpyError("the .npy shape " + text + " is not a tuple");
    std::vector<uint64_t> shape;
    size_t at = 1;
    while (at < text.size() - 1) {
        while (at < text.size() - 1 && (std::isspace(static_cast<unsigned char>(text[at])) || text[at] == ',')) ++at;
        if (at >= text.size() - 1) break;
        size_t used = 0;
        try {
            shape.push_back(std::stoull(text.substr(at), &used));
        } catch (const std::exception&) {
            throw NpyError("the .npy shape " + text + " is not a tuple of sizes");
        }
        at += used;
    }
    return shape;
}

}  // namespace

uint64_t Array::element_count() const {
    uint64_t n = 1;
    for (uint64_t d : shape) n = (d != 0 && n > UINT64_MAX / d) ? UINT64_MAX : n * d;
    return n;
}

uint32_t Array::item_size() const { return descr.size() > 2 ? uint32_t(std::stoul(descr.substr(2))) : 0; }

std::string type_name(const std::string& descr) {
    if (descr.size() < 3) return descr;
    const char kind = descr[1];
    const std::string bits = std::to_string(8 * std::stoul(descr.substr(2)));
    if (kind == 'f') return "float" + bits;
    if (kind == 'i') return "int" + bits;
    if (kind == 'u') return "uint" + bits;
    if (kind == 'b') return "bool";
    if (kind == 'c') return "complex" + bits;
    return descr;
}

std::string shape_text(const std::vector<uint64_t>& shape) {
    std::string text = "(";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

void check_magic(const uint8_t* bytes, size_t size) {
    if (size < kMagicBytes || std::memcmp(bytes, kMagic, kMagicBytes) != 0) throw NpyError("not a .npy file (no \\x93NUMPY magic)");
}

Array parse(const uint8_t* bytes, size_t size) {
    check_magic(bytes, size);
    if (size < kMagicBytes + 4) throw NpyError("the .npy file ends inside its header");
    const uint8_t major = bytes[6];
    if (major < 1 || major > 3) throw NpyError(".npy format version " + std::to_string(major) + " is not known");
    size_t header_bytes = size_t(bytes[8]) | size_t(bytes[9]) << 8;
    size_t at = 10;
    if (major >= 2) {
        if (size < 12) throw NpyError("the .npy file ends inside its header");
        header_bytes |= size_t(bytes[10]) << 16 | size_t(bytes[11]) << 24;
        at = 12;
    }
    if (header_bytes > size - at) throw NpyError("the .npy file ends inside its header");
    const std::string header(reinterpret_cast<const char*>(bytes + at), header_bytes);
    at += header_bytes;

    Array array;
    array.descr = parse_descr(dict_value(header, "descr"));
    if (dict_value(header, "fortran_order") != "False")
        throw NpyError("the .npy array is in Fortran order; save it in C order (np.ascontiguousarray)");
    array.shape = parse_shape(dict_value(header, "shape"));
    const uint64_t count = array.element_count();
    const uint64_t item = array.item_size();
    if (item == 0 || count > UINT64_MAX / item) throw NpyError("the .npy array's size overflows");
    if (count * item != size - at)
        throw NpyError("the .npy data holds " + std::to_string(size - at) + " bytes, its header says " + std::to_string(count * item));
    array.data.assign(bytes + at, bytes + size);
    return array;
}

std::vector<uint8_t> encode(const Array& array) {
    if (array.element_count() * array.item_size() != array.data.size())
        throw NpyError("the array's data is not its shape times its element size");
    std::string header = "{'descr': '" + array.descr + "', 'fortran_order': False, 'shape': " + shape_text(array.shape) + ", }";
    const bool wide = header.size() + 1 + 10 > 0xffff;   // version 2.0 has a four-byte header length
    const size_t prefix = wide ? 12 : 10;
    header.append(kAlignment - (prefix + header.size() + 1) % kAlignment, ' ');
    header += '\n';
    std::vector<uint8_t> bytes(kMagic, kMagic + kMagicBytes);
    bytes.push_back(wide ? 2 : 1);
    bytes.push_back(0);
    for (size_t i = 0; i < (wide ? 4u : 2u); ++i) bytes.push_back(uint8_t(header.size() >> (8 * i)));
    bytes.insert(bytes.end(), header.begin(), header.end());
    bytes.insert(bytes.end(), array.data.begin(), array.data.end());
    return bytes;
}

void write_file(const std::filesystem::path& path, const Array& array) {
    const std::vector<uint8_t> bytes = encode(array);
    std::ofstream out(path, std::ios::binary);
    if (out) out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) throw NpyError("cannot write " + path.string() + ": " + std::strerror(errno));
}

}  // namespace nsim::npy
