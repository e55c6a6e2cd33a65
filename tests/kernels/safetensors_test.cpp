// safetensors: round trips through our writer, a file laid out by hand byte by byte, and every kind of
// malformed file giving one line that names the file and the problem.
#include <cmath>
#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bert/half_float.h"
#include "bert/safetensors_reader.h"
#include "bert/safetensors_writer.h"
#include "common/input_error.h"
#include "kernels_test_support.h"

namespace nsim::kernels {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// 8-byte little-endian length + header + data, as the format describes it.
std::string file_bytes(const std::string& header, const std::string& data) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((static_cast<uint64_t>(header.size()) >> (8 * i)) & 0xff);
    return out + header + data;
}

std::string error_of(const std::filesystem::path& path) {
    try {
        SafetensorsReader reader(path);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

TEST(Safetensors, ReadsAFileLaidOutByHand) {
    testing::ScratchDir dir;
    // Two F32 values 1.5 and -2, then one BF16 value 3 (0x4040), and an I64 tensor.
    std::string data("\x00\x00\xc0\x3f\x00\x00\x00\xc0\x40\x40", 10);
    data += std::string("\x07\x00\x00\x00\x00\x00\x00\x00", 8);
    const std::string header =
        R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[1,1],"data_offsets":[8,10]},)"
        R"("ids":{"dtype":"I64","shape":[1],"data_offsets":[10,18]},"__metadata__":{"format":"pt"}})";
    testing::write_text(dir / "m.safetensors", file_bytes(header, data));
    SafetensorsReader reader(dir / "m.safetensors");
    ASSERT_EQ(reader.tensors().size(), 3u);
    EXPECT_THAT(reader.read_float("a").values, ElementsAre(1.5f, -2.0f));
    const Tensor b = reader.read_float("b");
    EXPECT_EQ(b.shape, (Shape{1, 1}));
    EXPECT_THAT(b.values, ElementsAre(3.0f));
    EXPECT_EQ(reader.metadata().at("format"), "pt");
    EXPECT_EQ(reader.find("ids")->dtype, SafetensorsDtype::I64);
    EXPECT_THAT(reader.read_bytes(*reader.find("ids")), ElementsAre(7, 0, 0, 0, 0, 0, 0, 0));
    try {
        reader.read_float("ids");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("tensor 'ids' has dtype I64, not a floating-point weight type"));
    }
    EXPECT_THROW(reader.read_float("nope"), InputError);
}

TEST(Safetensors, RoundTripInEveryWeightDtype) {
    testing::ScratchDir dir;
    const Tensor t({2, 3}, {0.0f, 1.0f, -2.5f, 3.14159f, 1e-3f, 65504.0f});
    write_safetensors(dir / "m.safetensors",
                      {make_safetensors_entry("f32", t, SafetensorsDtype::F32),
                       make_safetensors_entry("f16", t, SafetensorsDtype::F16),
                       make_safetensors_entry("bf16", t, SafetensorsDtype::BF16)},
                      {{"format", "pt"}});
    SafetensorsReader reader(dir / "m.safetensors");
    EXPECT_EQ(reader.read_float("f32").values, t.values);
    EXPECT_EQ(reader.read_float("f16").shape, t.shape);
    for (size_t i = 0; i < t.size(); ++i) {
        EXPECT_EQ(reader.read_float("f16").values[i], f16_bits_to_float(float_to_f16_bits(t.values[i])));
        EXPECT_EQ(reader.read_float("bf16").values[i], bf16_bits_to_float(float_to_bf16_bits(t.values[i])));
    }
    EXPECT_EQ(reader.read_float("bf16").values[3], 3.140625f);
    // The header is padded to a multiple of 8 so the data that follows is aligned.
    EXPECT_EQ((std::filesystem::file_size(dir / "m.safetensors") - 8 - (24 + 12 + 12)) % 8, 0u);
}

TEST(Safetensors, EmptyTensorAndEmptyFile) {
    testing::ScratchDir dir;
    write_safetensors(dir / "m.safetensors", {make_safetensors_entry("empty", Tensor({0, 4}))});
    SafetensorsReader reader(dir / "m.safetensors");
    EXPECT_EQ(reader.read_float("empty").shape, (Shape{0, 4}));
    write_safetensors(dir / "none.safetensors", {});
    EXPECT_TRUE(SafetensorsReader(dir / "none.safetensors").tensors().empty());
}

TEST(SafetensorsErrors, MissingFile) {
    EXPECT_EQ(error_of("/nonexistent/model.safetensors"), "/nonexistent/model.safetensors: no such file");
}

struct BadFile {
    const char* what;
    std::string bytes;
    const char* expected;  // after "<path>: not a valid safetensors file: "
};

void PrintTo(const BadFile& c, std::ostream* os) { *os << c.what; }

class SafetensorsBadFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(SafetensorsBadFile, IsOneLineNamingTheProblem) {
    testing::ScratchDir dir;
    const auto path = dir / "bad.safetensors";
    testing::write_text(path, GetParam().bytes);
    EXPECT_EQ(error_of(path), path.string() + ": not a valid safetensors file: " + GetParam().expected);
}

const std::string kOneF32 = std::string("\x00\x00\x80\x3f", 4);

INSTANTIATE_TEST_SUITE_P(
    Cases, SafetensorsBadFile,
    ::testing::Values(
        BadFile{"short", "abc", "3 bytes is shorter than the 8-byte header length"},
        BadFile{"length", std::string("\xff\x00\x00\x00\x00\x00\x00\x00{}", 10),
                "header length 255 does not fit in the file's 10 bytes"},
        BadFile{"array", file_bytes("[1, 2]", ""), "header is not a JSON object"},
        BadFile{"dtype", file_bytes(R"({"w":{"dtype":"F33","shape":[1],"data_offsets":[0,4]}})", kOneF32),
                "tensor 'w' has unknown dtype \"F33\""},
        BadFile{"noshape", file_bytes(R"({"w":{"dtype":"F32","data_offsets":[0,4]}})", kOneF32),
                "tensor 'w' has no \"shape\" array"},
        BadFile{"negative", file_bytes(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", kOneF32),
                "tensor 'w' has a shape entry -1 that is not a non-negative integer"},
        BadFile{"beyond", file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", kOneF32),
                "tensor 'w' has data_offsets [0, 8] outside the 4 data bytes"},
        BadFile{"size", file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", kOneF32),
                "tensor 'w' has 4 data bytes but [2] F32 of 4 needs 8"},
        BadFile{"overlap",
                file_bytes(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"b":{"dtype":"F16","shape":[1],"data_offsets":[2,4]}})",
                           kOneF32),
                "tensors 'a' and 'b' overlap"},
        BadFile{"metadata", file_bytes(R"({"__metadata__":{"n":1}})", ""),
                "\"__metadata__\" value of 'n' is not a string"}),
    [](const auto& info) { return std::string(info.param.what); });

TEST(SafetensorsErrors, HeaderThatIsNotJsonSaysSo) {
    testing::ScratchDir dir;
    testing::write_text(dir / "bad.safetensors", file_bytes("{\"a\": ", ""));
    const std::string error = error_of(dir / "bad.safetensors");
    EXPECT_THAT(error, HasSubstr("not a valid safetensors file: header is not JSON ("));
    EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(SafetensorsErrors, WriterRejectsBytesThatDoNotMatchTheShape) {
    testing::ScratchDir dir;
    SafetensorsEntry entry{"w", SafetensorsDtype::F32, {3}, std::vector<uint8_t>(8)};
    try {
        write_safetensors(dir / "m.safetensors", {entry});
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("tensor 'w' has 8 bytes but [3] F32 needs 12"));
    }
}

TEST(HalfFloat, KnownBitPatterns) {
    EXPECT_EQ(float_to_f16_bits(1.0f), 0x3C00);
    EXPECT_EQ(float_to_f16_bits(-2.0f), 0xC000);
    EXPECT_EQ(float_to_f16_bits(65504.0f), 0x7BFF);
    EXPECT_EQ(float_to_f16_bits(65519.0f), 0x7BFF);
    EXPECT_EQ(float_to_f16_bits(65520.0f), 0x7C00);  // halfway to 65536 rounds to even: infinity
    EXPECT_EQ(float_to_f16_bits(std::ldexp(1.0f, -24)), 0x0001);
    EXPECT_EQ(float_to_f16_bits(std::ldexp(1.0f, -25)), 0x0000);   // tie, to even
    EXPECT_EQ(float_to_f16_bits(std::ldexp(1.5f, -25)), 0x0001);
    EXPECT_EQ(float_to_f16_bits(std::ldexp(3.0f, -25)), 0x0002);   // 1.5 ulp ties to even 2
    EXPECT_EQ(float_to_f16_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie, to even
    EXPECT_EQ(float_to_f16_bits(1.0f + std::ldexp(3.0f, -11)), 0x3C02);  // tie, to even (up)
    EXPECT_EQ(f16_bits_to_float(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(f16_bits_to_float(0x03FF), std::ldexp(1023.0f, -24));
    EXPECT_TRUE(std::isnan(f16_bits_to_float(float_to_f16_bits(std::nanf("")))));
    EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3F80);
    EXPECT_EQ(float_to_bf16_bits(std::ldexp(1.0f, 0) + std::ldexp(1.0f, -8)), 0x3F80);  // tie, to even
    EXPECT_EQ(float_to_bf16_bits(1.0f + std::ldexp(3.0f, -8)), 0x3F82);
    EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(std::nanf("")))));
}

TEST(HalfFloat, EveryF16ValueRoundTripsThroughFloat) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const auto h = static_cast<uint16_t>(bits);
        if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) continue;  // nan payloads
        ASSERT_EQ(float_to_f16_bits(f16_bits_to_float(h)), h) << std::hex << bits;
    }
}

}  // namespace
}  // namespace nsim::kernels
