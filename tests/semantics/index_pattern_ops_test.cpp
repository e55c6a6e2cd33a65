// memset, iota and affine_select against plain loops. All exact: the values are immediates or
// integers, rounded to the destination with round_to (exhaustively checked elsewhere).
#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

namespace MS = isa::fields::Memset;
namespace IO = isa::fields::Iota;
namespace AS = isa::fields::AffineSelect;
using isa::AluOp;

TEST(Memset, EveryDtypeRoundsTheValue) {
    for (DType t : kAllDtypes)
        for (float value : {0.0f, 3.7f, -2.5f, 1000.0f, 1e-3f, -1e9f}) {
            SCOPED_TRACE(dtype_name(t) + " " + std::to_string(value));
            Machine m;
            const AccessPattern dst = sbuf(t, 10, 5, 40, {{3, 7}});
            isa::Instruction inst = make(isa::Opcode::Memset);
            inst.set(MS::dst, dst).set_f32(MS::value, value);
            put(m.sbuf, address_of(m, dst, 0, {0}) + isa::size_in_bytes(t), t, 99.0f);  // between two elements
            execute(inst, m.spaces());
            for (uint32_t p = 0; p < 5; ++p)
                for (uint32_t i = 0; i < 7; ++i)
                    ASSERT_TRUE(same_value(get(m.sbuf, address_of(m, dst, p, {i}), t), dtype::round_to(t, value)));
            EXPECT_EQ(get(m.sbuf, address_of(m, dst, 0, {0}) + isa::size_in_bytes(t), t), dtype::round_to(t, 99.0f));
        }
}

TEST(Iota, AffineIndicesInEveryDtype) {
    for (DType t : kAllDtypes) {
        SCOPED_TRACE(dtype_name(t));
        Machine m;
        const int32_t base = -20, partition_step = 3, free_step = 2;
        const AccessPattern dst = sbuf(t, 30, 16, 8, {{2, 4}, {1, 2}});  // two free dims: i runs 0..7
        isa::Instruction inst = make(isa::Opcode::Iota);
        inst.set(IO::dst, dst).set_i32(IO::base, base).set_i32(IO::partition_step, partition_step);
        inst.set_i32(IO::free_step, free_step);
        execute(inst, m.spaces());
        for (uint32_t p = 0; p < 16; ++p)
            for (uint32_t a = 0; a < 4; ++a)
                for (uint32_t b = 0; b < 2; ++b) {
                    const int32_t i = int32_t(a * 2 + b);
                    const float want = dtype::round_to(t, float(base + partition_step * int32_t(p) + free_step * i));
                    ASSERT_EQ(get(m.sbuf, address_of(m, dst, p, {a, b}), t), want) << p << "," << i;
                }
    }
}

TEST(Iota, Int32IsExactBeyondFp32Precision) {
    Machine m;
    const AccessPattern dst = sbuf_tile(DType::Int32, 0, 4, 0, 4);
    isa::Instruction inst = make(isa::Opcode::Iota);
    inst.set(IO::dst, dst).set_i32(IO::base, (1 << 30) + 1).set_i32(IO::partition_step, -7).set_i32(IO::free_step, 1 << 28);
    execute(inst, m.spaces());
    for (int64_t p = 0; p < 4; ++p)
        for (int64_t i = 0; i < 4; ++i) {
            int32_t got;
            m.sbuf.read(p * kSbufPartitionBytes + i * 4, reinterpret_cast<uint8_t*>(&got), 4);
            const int64_t want = std::min<int64_t>((int64_t(1) << 30) + 1 - 7 * p + i * (int64_t(1) << 28), 2147483647);
            EXPECT_EQ(got, want) << p << "," << i;
        }
}

bool reference_holds(AluOp cmp, int64_t v) {
    switch (cmp) {
        case AluOp::IsEqual: return v == 0;
        case AluOp::NotEqual: return v != 0;
        case AluOp::IsGt: return v > 0;
        case AluOp::IsGe: return v >= 0;
        case AluOp::IsLt: return v < 0;
        case AluOp::IsLe: return v <= 0;
        default: ADD_FAILURE(); return false;
    }
}

TEST(AffineSelect, EveryComparisonBuildsTheMaskInEveryDtype) {
    std::mt19937 rng(90);
    for (DType t : kAllDtypes)
        for (AluOp cmp : {AluOp::IsEqual, AluOp::NotEqual, AluOp::IsGt, AluOp::IsGe, AluOp::IsLt, AluOp::IsLe}) {
            SCOPED_TRACE(dtype_name(t) + " " + std::string(isa::name_of(cmp)));
            Machine m;
            const uint32_t rows = 24, cols = 24;
            const auto [lo, hi] = range_of(t);
            const std::vector<float> x = random_values(rng, t, rows * cols, lo, hi);
            store_rows(m, sbuf_tile(t, 40, rows, 0, cols), x);
            // Causal mask: keep key i <= query p, i.e. p - i >= 0.
            const int32_t base = 2, partition_step = 1, free_step = -1;
            const float fill = -10000.0f;
            isa::Instruction inst = make(isa::Opcode::AffineSelect);
            inst.set(AS::dst, sbuf_tile(t, 40, rows, 512, cols)).set(AS::src, sbuf_tile(t, 40, rows, 0, cols));
            inst.set_enum(AS::cmp, cmp).set_i32(AS::base, base).set_i32(AS::partition_step, partition_step);
            inst.set_i32(AS::free_step, free_step).set_f32(AS::fill, fill);
            execute(inst, m.spaces());
            const std::vector<float> got = load_rows(m, sbuf_tile(t, 40, rows, 512, cols));
            for (uint32_t p = 0; p < rows; ++p)
                for (uint32_t i = 0; i < cols; ++i) {
                    const bool keep = reference_holds(cmp, base + int64_t(p) * partition_step + int64_t(i) * free_step);
                    ASSERT_EQ(got[p * cols + i], keep ? x[p * cols + i] : dtype::round_to(t, fill)) << p << "," << i;
                }
        }
}

TEST(AffineSelect, NonComparisonOperatorTestsTheResultAgainstZero) {
    Machine m;
    store_rows(m, sbuf_tile(DType::Fp32, 0, 1, 0, 5), {1, 2, 3, 4, 5});
    isa::Instruction inst = make(isa::Opcode::AffineSelect);
    inst.set(AS::dst, sbuf_tile(DType::Fp32, 0, 1, 64, 5)).set(AS::src, sbuf_tile(DType::Fp32, 0, 1, 0, 5));
    // value = i - 2; "multiply by 0" is 0 everywhere (never true), "add 0" is true where value != 0.
    inst.set_i32(AS::base, -2).set_i32(AS::partition_step, 0).set_i32(AS::free_step, 1).set_f32(AS::fill, -1.0f);
    inst.set_enum(AS::cmp, AluOp::Add);
    execute(inst, m.spaces());
    EXPECT_EQ(load_rows(m, sbuf_tile(DType::Fp32, 0, 1, 64, 5)), (std::vector<float>{1, 2, -1, 4, 5}));
    inst.set_enum(AS::cmp, AluOp::Multiply);
    execute(inst, m.spaces());
    EXPECT_EQ(load_rows(m, sbuf_tile(DType::Fp32, 0, 1, 64, 5)), (std::vector<float>{-1, -1, -1, -1, -1}));
}

}  // namespace
}  // namespace nsim::sim::core::test
