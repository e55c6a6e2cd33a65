// The .npy reader and writer against the format as numpy writes it (byte for byte), and its refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "npy_file.h"

namespace nsim::npy {
namespace {

std::vector<uint8_t> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }

// What np.save writes for np.arange(6, dtype=np.int32).reshape(2, 3) (numpy before 1.23, which pads the
// header to a multiple of 64 bytes and no further).
std::vector<uint8_t> numpy_int32_2x3() {
    std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');   // numpy's padding: to the next multiple of 64
    header += '\n';
    std::vector<uint8_t> bytes = bytes_of(std::string("\x93NUMPY\x01\x00", 8));
    bytes.push_back(uint8_t(header.size()));
    bytes.push_back(0);
    bytes.insert(bytes.end(), header.begin(), header.end());
    for (int32_t v = 0; v < 6; ++v) bytes.insert(bytes.end(), {uint8_t(v), 0, 0, 0});
    return bytes;
}

TEST(NpyFile, ReadsWhatNumpyWrites) {
    const auto bytes = numpy_int32_2x3();
    const Array a = parse(bytes.data(), bytes.size());
    EXPECT_EQ(a.descr, "<i4");
    EXPECT_EQ(a.shape, (std::vector<uint64_t>{2, 3}));
    ASSERT_EQ(a.data.size(), 24u);
    int32_t last = 0;
    std::memcpy(&last, a.data.data() + 20, 4);
    EXPECT_EQ(last, 5);
}

TEST(NpyFile, WritesWhatNumpyWrites) {
    const auto numpy = numpy_int32_2x3();
    const Array a = parse(numpy.data(), numpy.size());
    EXPECT_EQ(encode(a), numpy);
    EXPECT_EQ((encode(a).size() - 24) % 64, 0u);   // the data starts 64-byte aligned
}

TEST(NpyFile, ScalarsOneDimensionsAndOneByteTypesRoundTrip) {
    for (const Array& a : {Array{"<f4", {}, std::vector<uint8_t>(4, 7)}, Array{"|u1", {5}, std::vector<uint8_t>(5, 3)},
                           Array{"|i1", {0, 4}, {}}, Array{"<f2", {1, 2, 3}, std::vector<uint8_t>(12, 1)}}) {
        const auto bytes = encode(a);
        const Array back = parse(bytes.data(), bytes.size());
        EXPECT_EQ(back.descr, a.descr);
        EXPECT_EQ(back.shape, a.shape);
        EXPECT_EQ(back.data, a.data);
    }
    EXPECT_EQ(shape_text({}), "()");
    EXPECT_EQ(shape_text({5}), "(5,)");
    EXPECT_EQ(shape_text({2, 3}), "(2, 3)");
    EXPECT_EQ(type_name("<f4"), "float32");
    EXPECT_EQ(type_name("<f8"), "float64");
    EXPECT_EQ(type_name("|u1"), "uint8");
}

TEST(NpyFile, AVersionTwoHeaderIsRead) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
    header.append(64 - (12 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::vector<uint8_t> bytes = bytes_of(std::string("\x93NUMPY\x02\x00", 8));
    bytes.insert(bytes.end(), {uint8_t(header.size()), 0, 0, 0});
    bytes.insert(bytes.end(), header.begin(), header.end());
    bytes.insert(bytes.end(), {0, 0, 0x80, 0x3f});
    const Array a = parse(bytes.data(), bytes.size());
    float v = 0;
    std::memcpy(&v, a.data.data(), 4);
    EXPECT_EQ(v, 1.0f);
}

// Each broken file is one line saying what is wrong.
TEST(NpyFile, BrokenFilesAreRefusedWithAReason) {
    auto refusal = [](std::vector<uint8_t> bytes) -> std::string {
        try {
            parse(bytes.data(), bytes.size());
        } catch (const NpyError& e) {
            return e.what();
        }
        return "accepted";
    };
    EXPECT_NE(refusal(bytes_of("PK\x03\x04 a zip file, not an array")).find("not a .npy file"), std::string::npos);
    auto numpy = numpy_int32_2x3();
    numpy.pop_back();
    EXPECT_NE(refusal(numpy).find("data holds 23 bytes"), std::string::npos);
    auto fortran = numpy_int32_2x3();
    const std::string f = "False";
    auto at = std::search(fortran.begin(), fortran.end(), f.begin(), f.end());
    std::copy_n("True ", 5, at);
    EXPECT_NE(refusal(fortran).find("Fortran order"), std::string::npos);
    auto big = numpy_int32_2x3();
    big[21] = '>';   // the descr's byte order
    EXPECT_NE(refusal(big).find("big-endian"), std::string::npos) << refusal(big);
    auto truncated = numpy_int32_2x3();
    truncated.resize(40);
    EXPECT_NE(refusal(truncated).find("ends inside its header"), std::string::npos);
    for (const std::string& r : {refusal(numpy), refusal(fortran), refusal(big), refusal(truncated)})
        EXPECT_EQ(r.find('\n'), std::string::npos) << r;
}

}  // namespace
}  // namespace nsim::npy
