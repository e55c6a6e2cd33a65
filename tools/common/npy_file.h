// NumPy's .npy file format (version 1.0, 2.0 and 3.0 read; 1.0 written, 2.0 when the header needs it):
// the magic "\x93NUMPY", a version, a little-endian header length, an ASCII Python dict
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded to a multiple of 64 bytes, then
// the elements in C order. Only what tensors need: little-endian (or one-byte) numeric types, C order.
// Shared by neuron-sim's --input / --output-dir and the Python module; depends on nothing of ours.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace nsim::npy {

// One line saying what is wrong with the file (without its name: the caller knows it).
class NpyError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Array {
    std::string descr;              // numpy's type string, normalised: "<f4", "<f2", "<i4", "|i1", "|u1", "|b1" ...
    std::vector<uint64_t> shape;    // empty: a scalar
    std::vector<uint8_t> data;      // elements, C order, little-endian

    uint64_t element_count() const;
    uint32_t item_size() const;     // bytes per element, from descr
};

// The numpy name of a type string ("float32" for "<f4"), for messages.
std::string type_name(const std::string& descr);
// "(256, 2048)", as numpy prints a shape.
std::string shape_text(const std::vector<uint64_t>& shape);

// Every .npy file starts with kMagicBytes bytes of magic; check_magic throws NpyError when `bytes`
// do not, so a reader can refuse anything else before reading it whole.
constexpr size_t kMagicBytes = 6;
void check_magic(const uint8_t* bytes, size_t size);

Array parse(const uint8_t* bytes, size_t size);
std::vector<uint8_t> encode(const Array& array);

// NpyError names the file when it cannot be written. There is no whole-file reader here on purpose:
// a user's .npy is read through tensor_files' bounded reader (isa/bounded_file), which refuses
// /dev/zero, directories and files larger than any tensor before reading them; parse() the bytes.
void write_file(const std::filesystem::path& path, const Array& array);

}  // namespace nsim::npy
