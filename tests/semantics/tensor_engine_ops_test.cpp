// matmul and transpose against plain loops.
// Tolerances: matmul is checked bit-exactly against the documented arithmetic (fp32 products, fp32
// sums in ascending k, then + the held PSUM value), and within K * 2^-24 * sum|products| of a double
// reference (the error any fp32 summation may have). Transposes are exact (a move, or a conversion
// checked against round_to).
#include <cstring>

#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

namespace MM = isa::fields::Matmul;
namespace TR = isa::fields::Transpose;

struct MatmulCase {
    uint32_t k, m, n;
    DType stationary_type, moving_type, dst_type;
    bool accumulate;
};

void run_matmul_case(const MatmulCase& c, uint32_t seed) {
    SCOPED_TRACE(dtype_name(c.stationary_type) + " x " + dtype_name(c.moving_type) + " -> " + dtype_name(c.dst_type) +
                 " K=" + std::to_string(c.k) + " M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) +
                 (c.accumulate ? " accumulate" : " overwrite"));
    Machine m;
    std::mt19937 rng(seed);
    const AccessPattern st = sbuf_tile(c.stationary_type, 0, c.k, 0, c.m);
    const AccessPattern mv = sbuf(c.moving_type, 0, c.k, 4096, {{2, c.n}});  // every other element
    const AccessPattern dst = psum(c.dst_type, c.m + 3 <= kPartitions ? 3 : 0, c.m, 128, {{1, c.n}});
    const auto [sl, sh] = range_of(c.stationary_type);
    const auto [ml, mh] = range_of(c.moving_type);
    const std::vector<float> a = random_values(rng, c.stationary_type, size_t(c.k) * c.m, sl / 4, sh / 4);
    const std::vector<float> b = random_values(rng, c.moving_type, size_t(c.k) * c.n, ml / 4, mh / 4);
    const std::vector<float> held = random_values(rng, c.dst_type, size_t(c.m) * c.n, -100.0f, 100.0f);
    store_rows(m, st, a);
    for (uint32_t k = 0; k < c.k; ++k)
        for (uint32_t j = 0; j < c.n; ++j) put(m.sbuf, address_of(m, mv, k, {j}), c.moving_type, b[k * c.n + j]);
    store_rows(m, dst, held);

    isa::Instruction inst = make(isa::Opcode::Matmul);
    inst.set(MM::dst, dst).set(MM::stationary, st).set(MM::moving, mv);
    inst.set_enum(MM::acc, c.accumulate ? isa::AccumulateMode::Accumulate : isa::AccumulateMode::Overwrite);
    execute(inst, m.spaces());

    const std::vector<float> got = load_rows(m, dst);
    for (uint32_t i = 0; i < c.m; ++i)
        for (uint32_t j = 0; j < c.n; ++j) {
            float sum = 0.0f;
            double exact = 0.0, magnitude = 0.0;
            for (uint32_t k = 0; k < c.k; ++k) {
                const float product = a[k * c.m + i] * b[k * c.n + j];
                sum = sum + product;
                exact += double(a[k * c.m + i]) * double(b[k * c.n + j]);
                magnitude += std::fabs(double(a[k * c.m + i]) * double(b[k * c.n + j]));
            }
            float want = sum;
            if (c.accumulate) {
                want = held[i * c.n + j] + sum;
                exact += held[i * c.n + j];
                magnitude += std::fabs(held[i * c.n + j]);
            }
            want = dtype::round_to(c.dst_type, want);
            const float g = got[i * c.n + j];
            ASSERT_EQ(g, want) << "dst[" << i << "," << j << "]";
            if (c.dst_type == DType::Fp32) {
                ASSERT_LE(std::fabs(double(g) - exact), (c.k + 1) * std::ldexp(magnitude, -24) + 1e-30);
            }
        }
}

TEST(Matmul, EveryInputDtypeIntoFp32Psum) {
    uint32_t seed = 1;
    for (DType t : kAllDtypes) {
        run_matmul_case({37, 19, 53, t, t, DType::Fp32, false}, seed++);
        run_matmul_case({37, 19, 53, t, t, DType::Fp32, true}, seed++);
    }
}

TEST(Matmul, FullTileShapes) {
    run_matmul_case({128, 128, 512, DType::Bf16, DType::Bf16, DType::Fp32, false}, 100);
    run_matmul_case({128, 128, 512, DType::Fp32, DType::Fp32, DType::Fp32, true}, 101);
    run_matmul_case({1, 1, 1, DType::Fp16, DType::Fp16, DType::Fp32, false}, 102);
}

TEST(Matmul, MixedInputsAndNarrowDestination) {
    run_matmul_case({64, 32, 40, DType::Bf16, DType::Fp8E4m3, DType::Fp32, false}, 200);
    run_matmul_case({64, 32, 40, DType::Fp16, DType::Fp16, DType::Bf16, false}, 201);
    run_matmul_case({64, 32, 40, DType::Fp8E5m2, DType::Fp8E5m2, DType::Bf16, true}, 202);
}

TEST(Matmul, AccumulationGroupAddsInPsumAcrossInstructions) {
    // Two K halves accumulated = one matmul over the whole K, up to the order of the additions:
    // exactly (first half sum) + (second half sum) in fp32.
    Machine m;
    std::mt19937 rng(5);
    const std::vector<float> a = random_values(rng, DType::Bf16, 256 * 16, -2, 2);
    const std::vector<float> b = random_values(rng, DType::Bf16, 256 * 24, -2, 2);
    store_rows(m, sbuf_tile(DType::Bf16, 0, 128, 0, 16), std::vector<float>(a.begin(), a.begin() + 128 * 16));
    store_rows(m, sbuf_tile(DType::Bf16, 0, 128, 64, 16), std::vector<float>(a.begin() + 128 * 16, a.end()));
    store_rows(m, sbuf_tile(DType::Bf16, 0, 128, 1024, 24), std::vector<float>(b.begin(), b.begin() + 128 * 24));
    store_rows(m, sbuf_tile(DType::Bf16, 0, 128, 2048, 24), std::vector<float>(b.begin() + 128 * 24, b.end()));
    const AccessPattern dst = psum(DType::Fp32, 0, 16, 0, {{1, 24}});
    isa::Instruction first = make(isa::Opcode::Matmul);
    first.set(MM::dst, dst).set(MM::stationary, sbuf_tile(DType::Bf16, 0, 128, 0, 16));
    first.set(MM::moving, sbuf_tile(DType::Bf16, 0, 128, 1024, 24)).set_enum(MM::acc, isa::AccumulateMode::Overwrite);
    isa::Instruction second = first;
    second.set(MM::stationary, sbuf_tile(DType::Bf16, 0, 128, 64, 16));
    second.set(MM::moving, sbuf_tile(DType::Bf16, 0, 128, 2048, 24)).set_enum(MM::acc, isa::AccumulateMode::Accumulate);
    store_rows(m, dst, std::vector<float>(16 * 24, 1e9f));  // stale PSUM contents, overwritten by the first
    execute(first, m.spaces());
    execute(second, m.spaces());
    const std::vector<float> got = load_rows(m, dst);
    for (uint32_t i = 0; i < 16; ++i)
        for (uint32_t j = 0; j < 24; ++j) {
            float lo = 0.0f, hi = 0.0f;
            for (uint32_t k = 0; k < 128; ++k) lo += a[k * 16 + i] * b[k * 24 + j];
            for (uint32_t k = 128; k < 256; ++k) hi += a[k * 16 + i] * b[k * 24 + j];
            EXPECT_EQ(got[i * 24 + j], lo + hi);
        }
}

TEST(Matmul, ShapeMismatchIsAOneLineError) {
    Machine m;
    isa::Instruction inst = make(isa::Opcode::Matmul);
    inst.set(MM::dst, psum(DType::Fp32, 0, 19, 0, {{1, 52}}))
        .set(MM::stationary, sbuf_tile(DType::Bf16, 0, 37, 0, 19))
        .set(MM::moving, sbuf_tile(DType::Bf16, 0, 37, 4096, 53));
    try {
        execute(inst, m.spaces());
        FAIL() << "no error";
    } catch (const SemanticsError& e) {
        EXPECT_STREQ(e.what(), "matmul: operand 'dst': is 19x52, the product is 19x53");
    }
    inst.set(MM::moving, sbuf_tile(DType::Bf16, 0, 36, 4096, 52));
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);
}

void run_transpose(DType src_type, DType dst_type, uint32_t rows, uint32_t cols, MemorySpace dst_space,
                   const std::vector<float>& values) {
    SCOPED_TRACE(dtype_name(src_type) + " -> " + dtype_name(dst_type));
    Machine m;
    // Partition offsets where the tile leaves room for them.
    const AccessPattern src = sbuf(src_type, rows + 2 <= kPartitions ? 2 : 0, rows, 40, {{1, cols}});
    const AccessPattern dst = on_chip(dst_space, dst_type, cols + 1 <= kPartitions ? 1 : 0, cols, 8, {{1, rows}});
    store_rows(m, src, values);
    isa::Instruction inst = make(isa::Opcode::Transpose);
    inst.set(TR::dst, dst).set(TR::src, src);
    execute(inst, m.spaces());
    const std::vector<float> got = load_rows(m, dst);
    for (uint32_t p = 0; p < rows; ++p)
        for (uint32_t f = 0; f < cols; ++f)
            ASSERT_TRUE(same_value(got[f * rows + p], dtype::round_to(dst_type, values[p * cols + f])))
                << "src[" << p << "," << f << "]";
}

TEST(Transpose, EveryDtypeThroughPsumAndWithinSbuf) {
    std::mt19937 rng(9);
    for (DType t : kAllDtypes) {
        const auto [lo, hi] = range_of(t);
        run_transpose(t, t, 20, 70, MemorySpace::Psum, random_values(rng, t, 20 * 70, lo, hi));
        run_transpose(t, DType::Fp32, 128, 128, MemorySpace::Psum, random_values(rng, t, 128 * 128, lo, hi));
        run_transpose(t, t, 32, 32, MemorySpace::Sbuf, random_values(rng, t, 32 * 32, lo, hi));
    }
    run_transpose(DType::Fp32, DType::Bf16, 32, 16, MemorySpace::Sbuf, random_values(rng, DType::Fp32, 512, -3, 3));
}

TEST(Transpose, EqualTypesMoveBitPatterns) {
    Machine m;
    const uint32_t words[] = {0x7FA00001u, 0x01000001u, 0x80000000u, 0xFFC12345u};  // NaN payloads, int32 2^24+1
    for (uint32_t i = 0; i < 4; ++i) m.sbuf.write(i * kSbufPartitionBytes, reinterpret_cast<const uint8_t*>(&words[i]), 4);
    for (DType t : {DType::Fp32, DType::Int32}) {
        isa::Instruction inst = make(isa::Opcode::Transpose);
        inst.set(TR::dst, psum(t, 0, 1, 0, {{1, 4}})).set(TR::src, sbuf_tile(t, 0, 4, 0, 1));
        execute(inst, m.spaces());
        for (uint32_t i = 0; i < 4; ++i) {
            uint32_t got;
            m.psum.read(i * 4, reinterpret_cast<uint8_t*>(&got), 4);
            EXPECT_EQ(got, words[i]) << dtype_name(t);
        }
    }
}

TEST(Transpose, ShapeMismatchIsAnError) {
    Machine m;
    isa::Instruction inst = make(isa::Opcode::Transpose);
    inst.set(TR::dst, psum(DType::Fp32, 0, 8, 0, {{1, 8}})).set(TR::src, sbuf_tile(DType::Fp32, 0, 4, 0, 8));
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);
}

}  // namespace
}  // namespace nsim::sim::core::test
