// activation, tensor_tensor, tensor_scalar, tensor_partition_scalar, select, tensor_copy, dma_copy
// against references written here.
// Tolerances: ALU operators, select and copies (every dtype pair) are exact (the reference applies the same fp32
// operation and rounds with round_to, itself checked exhaustively). Activation functions are
// evaluated here from different formulas in double, so their fp32 values may differ by one fp32 ulp,
// which can move a narrower result by one of its ulps: allowed |diff| <= 1 ulp of the destination
// dtype (2 fp32 ulps for fp32). The activation's add-reduction allows cols * 2^-23 * sum|values|.
#include <cstring>
#include <functional>

#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

namespace ACT = isa::fields::Activation;
namespace TT = isa::fields::TensorTensor;
namespace TS = isa::fields::TensorScalar;
namespace TPS = isa::fields::TensorPartitionScalar;
namespace SEL = isa::fields::Select;
namespace CP = isa::fields::TensorCopy;
namespace DMA = isa::fields::DmaCopy;

using isa::ActivationFunction;
using isa::AluOp;

std::vector<ActivationFunction> all_functions() {
    return {
#define NSIM_ACTIVATION(id, name) ActivationFunction::id,
#include "isa/activation_functions.def"
#undef NSIM_ACTIVATION
    };
}

std::vector<AluOp> all_alu_ops() {
    return {
#define NSIM_ALU_OP(id, name) AluOp::id,
#include "isa/alu_ops.def"
#undef NSIM_ALU_OP
    };
}

// Textbook definitions, deliberately not the formulas of element_ops.h where two exist.
double reference_function(ActivationFunction f, double t) {
    const double pi = 3.14159265358979323846;
    switch (f) {
        case ActivationFunction::Identity: return t;
        case ActivationFunction::Relu: return t < 0 ? 0.0 : t;
        case ActivationFunction::Gelu: return t * 0.5 * std::erfc(-t / std::sqrt(2.0));
        case ActivationFunction::GeluTanh:
            return 0.5 * t * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (t + 0.044715 * std::pow(t, 3))));
        case ActivationFunction::Exp: return std::exp(t);
        case ActivationFunction::Tanh: return std::tanh(t);
        case ActivationFunction::Sigmoid: return 0.5 * (1.0 + std::tanh(t / 2));
        case ActivationFunction::Rsqrt: return std::pow(t, -0.5);
        case ActivationFunction::Reciprocal: return 1.0 / t;
        case ActivationFunction::Square: return t * t;
        case ActivationFunction::Sqrt: return std::pow(t, 0.5);
        case ActivationFunction::Log: return std::log(t);
        case ActivationFunction::Silu: return t * 0.5 * (1.0 + std::tanh(t / 2));
        case ActivationFunction::GeluDx:  // d/dt of t * Phi(t), Phi by erfc
            return 0.5 * std::erfc(-t / std::sqrt(2.0)) + t * std::exp(-t * t / 2) / std::sqrt(2 * pi);
    }
    ADD_FAILURE() << "no reference for activation " << isa::name_of(f);
    return 0;
}

bool positive_domain(ActivationFunction f) {
    return f == ActivationFunction::Rsqrt || f == ActivationFunction::Sqrt || f == ActivationFunction::Log ||
           f == ActivationFunction::Reciprocal;
}

double tolerance(DType t, double value) {
    return t == DType::Fp32 ? 2 * ulp_of(t, value) : ulp_of(t, value);
}

void run_activation(ActivationFunction func, DType src_type, DType dst_type, bool with_bias, isa::ReduceOp reduce,
                    uint32_t seed) {
    SCOPED_TRACE(std::string(isa::name_of(func)) + " " + dtype_name(src_type) + " -> " + dtype_name(dst_type) +
                 (with_bias ? " bias" : "") + " reduce " + std::string(isa::name_of(reduce)));
    Machine m;
    std::mt19937 rng(seed);
    const uint32_t rows = 16, cols = 40;
    const bool positive = positive_domain(func);
    const float scale = positive ? 0.75f : -1.25f;
    const AccessPattern src = sbuf_tile(src_type, 4, rows, 0, cols);
    const AccessPattern dst = sbuf(dst_type, 4, rows, 4096, {{2, cols}});
    const AccessPattern bias = sbuf_tile(DType::Fp32, 4, rows, 8192, 1);
    const AccessPattern reduced = sbuf_tile(DType::Fp32, 4, rows, 8200, 1);
    const std::vector<float> x = positive ? random_values(rng, src_type, rows * cols, 0.5f, 4.0f)
                                          : random_values(rng, src_type, rows * cols, -3.0f, 3.0f);
    const std::vector<float> b = random_values(rng, DType::Fp32, rows, positive ? 0.125f : -1.0f, 1.0f);
    store_rows(m, src, x);
    store_rows(m, bias, b);
    isa::Instruction inst = make(isa::Opcode::Activation);
    inst.set(ACT::dst, dst).set(ACT::src, src).set_enum(ACT::func, func).set_f32(ACT::scale, scale);
    if (with_bias) inst.set(ACT::bias, bias);
    inst.set_enum(ACT::reduce_op, reduce);
    if (reduce != isa::ReduceOp::None) inst.set(ACT::reduce_dst, reduced);
    execute(inst, m.spaces());

    std::vector<float> got(rows * cols);
    for (uint32_t p = 0; p < rows; ++p)
        for (uint32_t f = 0; f < cols; ++f) got[p * cols + f] = get(m.sbuf, address_of(m, dst, p, {f}), dst_type);
    const std::vector<float> got_reduced = load_rows(m, reduced);
    for (uint32_t p = 0; p < rows; ++p) {
        float acc = 0;
        double magnitude = 0;
        for (uint32_t f = 0; f < cols; ++f) {
            float t = x[p * cols + f] * scale;
            if (with_bias) t = t + b[p];
            const float y = float(reference_function(func, t));
            const float want = dtype::round_to(dst_type, y);
            ASSERT_LE(std::fabs(double(got[p * cols + f]) - want), tolerance(dst_type, y))
                << "element " << p << "," << f << " t=" << t << " want " << want << " got " << got[p * cols + f];
            magnitude += std::fabs(y);
            if (f == 0) acc = y;
            else if (reduce == isa::ReduceOp::Add) acc += y;
            else if (reduce == isa::ReduceOp::Max) acc = std::max(acc, y);
            else if (reduce == isa::ReduceOp::Min) acc = std::min(acc, y);
        }
        if (reduce == isa::ReduceOp::Add)
            EXPECT_LE(std::fabs(got_reduced[p] - acc), cols * std::ldexp(magnitude, -23)) << "row " << p;
        else if (reduce != isa::ReduceOp::None)
            EXPECT_LE(std::fabs(got_reduced[p] - acc), 2 * ulp_of(DType::Fp32, acc)) << "row " << p;
        else
            EXPECT_EQ(got_reduced[p], 0.0f) << "reduce_dst untouched";
    }
}

TEST(Activation, EveryFunctionWithScaleAndBias) {
    uint32_t seed = 10;
    for (ActivationFunction f : all_functions()) {
        run_activation(f, DType::Fp32, DType::Fp32, true, isa::ReduceOp::None, seed++);
        run_activation(f, DType::Bf16, DType::Fp32, false, isa::ReduceOp::Add, seed++);
    }
}

TEST(Activation, EveryDestinationDtype) {
    uint32_t seed = 100;
    for (DType t : kFloatDtypes)
        for (ActivationFunction f : {ActivationFunction::Gelu, ActivationFunction::Exp, ActivationFunction::Identity})
            run_activation(f, DType::Fp32, t, true, isa::ReduceOp::Add, seed++);
    for (DType t : {DType::Int8, DType::Int32, DType::Uint8})
        run_activation(ActivationFunction::Exp, DType::Fp16, t, false, isa::ReduceOp::None, seed++);
    for (DType t : kAllDtypes) run_activation(ActivationFunction::Relu, t, DType::Fp32, true, isa::ReduceOp::Max, seed++);
}

TEST(Activation, ReductionsAddMaxMin) {
    run_activation(ActivationFunction::Exp, DType::Fp32, DType::Bf16, true, isa::ReduceOp::Add, 300);
    run_activation(ActivationFunction::Tanh, DType::Fp32, DType::Fp16, true, isa::ReduceOp::Max, 301);
    run_activation(ActivationFunction::Sigmoid, DType::Fp32, DType::Fp32, false, isa::ReduceOp::Min, 302);
}

TEST(Activation, OperandErrors) {
    Machine m;
    isa::Instruction inst = make(isa::Opcode::Activation);
    inst.set(ACT::dst, sbuf_tile(DType::Fp32, 0, 4, 0, 8)).set(ACT::src, sbuf_tile(DType::Fp32, 0, 4, 64, 8));
    inst.set_enum(ACT::func, ActivationFunction::Exp).set_f32(ACT::scale, 1.0f);
    inst.set(ACT::bias, sbuf_tile(DType::Fp32, 0, 4, 128, 2));  // two per partition
    try {
        execute(inst, m.spaces());
        FAIL();
    } catch (const SemanticsError& e) {
        EXPECT_STREQ(e.what(), "activation: operand 'bias': is 4x2, needs one element on each of 4 partitions");
    }
    inst.set(ACT::bias, AccessPattern{}).set_enum(ACT::reduce_op, isa::ReduceOp::Add);
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);  // reduce without reduce_dst
    inst.set_enum(ACT::reduce_op, isa::ReduceOp::None).set_u32(ACT::func, 200);
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);  // no such function
}

// ---- ALU operators ---------------------------------------------------------------------------------

float reference_alu(AluOp op, float a, float b) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    switch (op) {
        case AluOp::Bypass: return a;
        case AluOp::Add: return a + b;
        case AluOp::Subtract: return a - b;
        case AluOp::Multiply: return a * b;
        case AluOp::Divide: return a / b;
        case AluOp::Max: return std::isnan(a) || std::isnan(b) ? nan : std::max(a, b);
        case AluOp::Min: return std::isnan(a) || std::isnan(b) ? nan : std::min(a, b);
        case AluOp::Pow: return float(std::pow(double(a), double(b)));
        case AluOp::IsEqual: return float(a == b);
        case AluOp::NotEqual: return float(a != b);
        case AluOp::IsGt: return float(a > b);
        case AluOp::IsGe: return float(a >= b);
        case AluOp::IsLt: return float(a < b);
        case AluOp::IsLe: return float(a <= b);
        case AluOp::LogicalAnd: return float(a != 0 && b != 0);
        case AluOp::LogicalOr: return float(a != 0 || b != 0);
    }
    ADD_FAILURE() << "no reference for ALU op " << isa::name_of(op);
    return 0;
}

// Inputs with repeats and zeros so that comparisons and logical operators see both outcomes.
std::vector<float> alu_inputs(std::mt19937& rng, DType t, size_t n) {
    auto [lo, hi] = range_of(t);
    std::vector<float> v = random_values(rng, t, n, lo / 2, hi / 2);
    for (size_t i = 0; i < n; i += 7) v[i] = 0.0f;
    for (size_t i = 3; i < n; i += 11) v[i] = dtype::round_to(t, 2.0f);
    return v;
}

TEST(TensorTensor, EveryOperatorEveryDtype) {
    std::mt19937 rng(42);
    for (DType t : kAllDtypes) {
        for (AluOp op : all_alu_ops()) {
            SCOPED_TRACE(dtype_name(t) + " " + std::string(isa::name_of(op)));
            Machine m;
            const AccessPattern a_ap = sbuf_tile(t, 0, 8, 0, 33), b_ap = sbuf(t, 0, 8, 512, {{3, 11}, {1, 3}});
            const AccessPattern dst = sbuf_tile(t, 0, 8, 1024, 33);
            const std::vector<float> a = alu_inputs(rng, t, 8 * 33), b = alu_inputs(rng, t, 8 * 33);
            store_rows(m, a_ap, a);
            for (uint32_t p = 0; p < 8; ++p)
                for (uint32_t i = 0; i < 11; ++i)
                    for (uint32_t j = 0; j < 3; ++j) put(m.sbuf, address_of(m, b_ap, p, {i, j}), t, b[p * 33 + i * 3 + j]);
            isa::Instruction inst = make(isa::Opcode::TensorTensor);
            inst.set(TT::dst, dst).set(TT::src0, a_ap).set(TT::src1, b_ap).set_enum(TT::op, op);
            execute(inst, m.spaces());
            const std::vector<float> got = load_rows(m, dst);
            for (size_t i = 0; i < got.size(); ++i)
                ASSERT_TRUE(same_value(got[i], dtype::round_to(t, reference_alu(op, a[i], b[i]))))
                    << "element " << i << ": " << a[i] << " op " << b[i] << " got " << got[i];
        }
    }
}

TEST(TensorTensor, MixedOperandTypesComputeInFp32) {
    Machine m;
    std::mt19937 rng(43);
    const std::vector<float> a = random_values(rng, DType::Bf16, 4 * 16, -10, 10);
    const std::vector<float> b = random_values(rng, DType::Int8, 4 * 16, -100, 100);
    store_rows(m, sbuf_tile(DType::Bf16, 0, 4, 0, 16), a);
    store_rows(m, psum(DType::Int8, 0, 4, 0, {{1, 16}}), b);
    isa::Instruction inst = make(isa::Opcode::TensorTensor);
    inst.set(TT::dst, sbuf_tile(DType::Fp32, 0, 4, 256, 16)).set(TT::src0, sbuf_tile(DType::Bf16, 0, 4, 0, 16));
    inst.set(TT::src1, psum(DType::Int8, 0, 4, 0, {{1, 16}})).set_enum(TT::op, AluOp::Divide);
    execute(inst, m.spaces());
    const std::vector<float> got = load_rows(m, sbuf_tile(DType::Fp32, 0, 4, 256, 16));
    for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same_value(got[i], a[i] / b[i])) << i;
}

TEST(TensorScalar, EveryOperatorPairWithImmediatesInEveryDtype) {
    std::mt19937 rng(44);
    for (DType t : kAllDtypes) {
        const std::vector<float> x = alu_inputs(rng, t, 4 * 24);
        for (AluOp op0 : all_alu_ops())
            for (AluOp op1 : {AluOp::Bypass, AluOp::Add, AluOp::Multiply, AluOp::IsGt, AluOp::Max}) {
                SCOPED_TRACE(dtype_name(t) + " " + std::string(isa::name_of(op0)) + " then " + std::string(isa::name_of(op1)));
                Machine m;
                const float imm0 = 1.5f, imm1 = -0.75f;
                store_rows(m, sbuf_tile(t, 64, 4, 0, 24), x);
                isa::Instruction inst = make(isa::Opcode::TensorScalar);
                inst.set(TS::dst, sbuf_tile(t, 64, 4, 200, 24)).set(TS::src, sbuf_tile(t, 64, 4, 0, 24));
                inst.set_enum(TS::op0, op0).set_f32(TS::imm0, imm0).set_enum(TS::op1, op1).set_f32(TS::imm1, imm1);
                execute(inst, m.spaces());
                const std::vector<float> got = load_rows(m, sbuf_tile(t, 64, 4, 200, 24));
                for (size_t i = 0; i < got.size(); ++i)
                    ASSERT_TRUE(same_value(got[i], dtype::round_to(t, reference_alu(op1, reference_alu(op0, x[i], imm0), imm1))))
                        << "x=" << x[i] << " got " << got[i];
            }
    }
}

TEST(TensorPartitionScalar, PerPartitionOperandsWithAndWithoutTheSecond) {
    std::mt19937 rng(45);
    for (DType t : kAllDtypes) {
        SCOPED_TRACE(dtype_name(t));
        Machine m;
        const uint32_t rows = 128, cols = 20;
        const std::vector<float> x = alu_inputs(rng, t, rows * cols);
        const std::vector<float> s0 = random_values(rng, DType::Fp32, rows, -3, 3);
        const std::vector<float> s1 = random_values(rng, DType::Bf16, rows, 0.5f, 2);
        store_rows(m, sbuf_tile(t, 0, rows, 0, cols), x);
        store_rows(m, sbuf_tile(DType::Fp32, 0, rows, 100, 1), s0);
        store_rows(m, psum(DType::Bf16, 0, rows, 6, {{1, 1}}), s1);
        isa::Instruction inst = make(isa::Opcode::TensorPartitionScalar);
        inst.set(TPS::dst, sbuf_tile(t, 0, rows, 200, cols)).set(TPS::src, sbuf_tile(t, 0, rows, 0, cols));
        inst.set_enum(TPS::op0, AluOp::Subtract).set(TPS::scalar0, sbuf_tile(DType::Fp32, 0, rows, 100, 1));
        inst.set_enum(TPS::op1, AluOp::Multiply).set(TPS::scalar1, psum(DType::Bf16, 0, rows, 6, {{1, 1}}));
        execute(inst, m.spaces());
        std::vector<float> got = load_rows(m, sbuf_tile(t, 0, rows, 200, cols));
        for (uint32_t p = 0; p < rows; ++p)
            for (uint32_t f = 0; f < cols; ++f)
                ASSERT_TRUE(same_value(got[p * cols + f], dtype::round_to(t, (x[p * cols + f] - s0[p]) * s1[p])))
                    << p << "," << f;
        // Without scalar1 the second operator is skipped whatever it is.
        inst.set(TPS::scalar1, AccessPattern{}).set_enum(TPS::op0, AluOp::Max).set_enum(TPS::op1, AluOp::Divide);
        execute(inst, m.spaces());
        got = load_rows(m, sbuf_tile(t, 0, rows, 200, cols));
        for (uint32_t p = 0; p < rows; ++p)
            for (uint32_t f = 0; f < cols; ++f)
                ASSERT_TRUE(same_value(got[p * cols + f], dtype::round_to(t, std::max(x[p * cols + f], s0[p]))));
    }
}

TEST(Select, PredicateChoosesPerElement) {
    for (DType t : kAllDtypes) {
        SCOPED_TRACE(dtype_name(t));
        Machine m;
        std::mt19937 rng(46);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::vector<float> predicate = {0.0f, -0.0f, 1.0f, nan, -3.0f, 0.0f, 1e-30f, 2.0f};
        for (float& v : predicate) v = dtype::round_to(DType::Fp32, v);
        const auto [lo, hi] = range_of(t);
        const std::vector<float> on_true = random_values(rng, DType::Fp32, 8, lo, hi);
        const std::vector<float> on_false = random_values(rng, DType::Bf16, 8, lo, hi);
        store_rows(m, sbuf_tile(DType::Fp32, 0, 2, 0, 4), predicate);
        store_rows(m, sbuf_tile(DType::Fp32, 0, 2, 64, 4), on_true);
        store_rows(m, sbuf_tile(DType::Bf16, 0, 2, 128, 4), on_false);
        isa::Instruction inst = make(isa::Opcode::Select);
        inst.set(SEL::dst, sbuf_tile(t, 0, 2, 256, 4)).set(SEL::predicate, sbuf_tile(DType::Fp32, 0, 2, 0, 4));
        inst.set(SEL::on_true, sbuf_tile(DType::Fp32, 0, 2, 64, 4)).set(SEL::on_false, sbuf_tile(DType::Bf16, 0, 2, 128, 4));
        execute(inst, m.spaces());
        const std::vector<float> got = load_rows(m, sbuf_tile(t, 0, 2, 256, 4));
        for (size_t i = 0; i < 8; ++i) {
            const bool choose_true = std::isnan(predicate[i]) || predicate[i] != 0.0f;
            EXPECT_EQ(got[i], dtype::round_to(t, choose_true ? on_true[i] : on_false[i])) << i;
        }
    }
}

TEST(TensorCopy, EveryDtypePair) {
    std::mt19937 rng(47);
    for (DType from : kAllDtypes)
        for (DType to : kAllDtypes) {
            SCOPED_TRACE(dtype_name(from) + " -> " + dtype_name(to));
            Machine m;
            const auto [lo, hi] = range_of(from);
            std::vector<float> x = random_values(rng, from, 6 * 10, lo, hi);
            store_rows(m, sbuf_tile(from, 1, 6, 0, 10), x);
            isa::Instruction inst = make(isa::Opcode::TensorCopy);
            inst.set(CP::dst, psum(to, 2, 6, 12, {{1, 10}})).set(CP::src, sbuf_tile(from, 1, 6, 0, 10));
            execute(inst, m.spaces());
            const std::vector<float> got = load_rows(m, psum(to, 2, 6, 12, {{1, 10}}));
            for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], dtype::round_to(to, x[i])) << x[i];
        }
}

TEST(TensorCopy, EqualTypesKeepInt32Exactly) {
    Machine m;
    const int32_t big[] = {16777217, -2147483647 - 1, 2147483647, 123456789};
    for (uint32_t i = 0; i < 4; ++i) m.sbuf.write(i * 4, reinterpret_cast<const uint8_t*>(&big[i]), 4);
    isa::Instruction inst = make(isa::Opcode::TensorCopy);
    inst.set(CP::dst, sbuf(DType::Int32, 9, 4, 0, {{1, 1}})).set(CP::src, sbuf_tile(DType::Int32, 0, 1, 0, 4));
    execute(inst, m.spaces());
    for (uint32_t i = 0; i < 4; ++i) {
        int32_t got;
        m.sbuf.read((9 + i) * kSbufPartitionBytes, reinterpret_cast<uint8_t*>(&got), 4);
        EXPECT_EQ(got, big[i]);
    }
}

TEST(DmaCopy, BroadcastRowFromDramAsInTheLayernormExample) {
    // dma_copy dst=fp32 sbuf[0:128] +3072 [[1,4],[4,64]], src=fp32 dram:gamma +0 [[0,128],[1,4],[0,64]]
    Machine m;
    const float gamma[] = {1.0f, 0.5f, 0.75f, 0.25f};
    for (uint32_t i = 0; i < 4; ++i) put(m.dram, m.tensor_base.at(2) + i * 4, DType::Fp32, gamma[i]);
    isa::Instruction inst = make(isa::Opcode::DmaCopy);
    inst.set(DMA::dst, sbuf(DType::Fp32, 0, 128, 3072, {{1, 4}, {4, 64}}));
    inst.set(DMA::src, tensor(MemorySpace::Dram, DType::Fp32, 2, 128, 0, 0, {{1, 4}, {0, 64}}));
    execute(inst, m.spaces());
    const std::vector<float> got = load_rows(m, sbuf_tile(DType::Fp32, 0, 128, 3072, 256));
    for (uint32_t p = 0; p < 128; ++p)
        for (uint32_t j = 0; j < 256; ++j) ASSERT_EQ(got[p * 256 + j], gamma[j % 4]) << p << "," << j;
}

TEST(DmaCopy, EveryDtypePairDramToSbufToHost) {
    std::mt19937 rng(49);
    for (DType from : kAllDtypes)
        for (DType to : kAllDtypes) {
            SCOPED_TRACE(dtype_name(from) + " -> " + dtype_name(to));
            Machine m;
            const auto [lo, hi] = range_of(from);
            const std::vector<float> x = random_values(rng, from, 5 * 9, lo, hi);
            // DRAM [5, 9] with a row stride of 12 -> SBUF (converted) -> HOST (same type: raw bytes).
            const AccessPattern dram = tensor(MemorySpace::Dram, from, 1, 5, 12, 2 * isa::size_in_bytes(from), {{1, 9}});
            const AccessPattern on_chip = sbuf_tile(to, 3, 5, 40, 9);
            const AccessPattern host = tensor(MemorySpace::Host, to, 7, 5, 9, 0, {{1, 9}});
            store_rows(m, dram, x);
            const bool raw_int32 = from == DType::Int32 && to == DType::Int32;
            const int32_t beyond_fp32 = 16777217;  // 2^24 + 1: survives only a raw copy
            if (raw_int32) m.dram.write(address_of(m, dram, 0, {0}), reinterpret_cast<const uint8_t*>(&beyond_fp32), 4);
            isa::Instruction inst = make(isa::Opcode::DmaCopy);
            execute(inst.set(DMA::dst, on_chip).set(DMA::src, dram), m.spaces());
            execute(inst.set(DMA::dst, host).set(DMA::src, on_chip), m.spaces());
            const std::vector<float> got = load_rows(m, host);
            for (size_t i = raw_int32 ? 1 : 0; i < x.size(); ++i)
                ASSERT_TRUE(same_value(got[i], dtype::round_to(to, x[i]))) << "element " << i << " from " << x[i];
            if (raw_int32) {
                int32_t copied = 0;
                m.host.read(address_of(m, host, 0, {0}), reinterpret_cast<uint8_t*>(&copied), 4);
                EXPECT_EQ(copied, beyond_fp32);
            }
        }
}

TEST(DmaCopy, BetweenDramHostAndOnChipWithConversion) {
    Machine m;
    std::mt19937 rng(48);
    // HOST fp32 [6, 10] -> SBUF bf16 (converted) -> DRAM bf16 with a row stride of 16 (raw) -> PSUM fp32.
    const std::vector<float> x = random_values(rng, DType::Fp32, 60, -5, 5);
    const AccessPattern host = tensor(MemorySpace::Host, DType::Fp32, 7, 6, 10, 0, {{1, 10}});
    store_rows(m, host, x);
    const AccessPattern on_chip_bf16 = sbuf_tile(DType::Bf16, 0, 6, 0, 10);
    const AccessPattern dram = tensor(MemorySpace::Dram, DType::Bf16, 1, 6, 16, 4, {{1, 10}});
    const AccessPattern back = psum(DType::Fp32, 0, 6, 0, {{1, 10}});
    isa::Instruction inst = make(isa::Opcode::DmaCopy);
    execute(inst.set(DMA::dst, on_chip_bf16).set(DMA::src, host), m.spaces());
    execute(inst.set(DMA::dst, dram).set(DMA::src, on_chip_bf16), m.spaces());
    execute(inst.set(DMA::dst, back).set(DMA::src, dram), m.spaces());
    const std::vector<float> got = load_rows(m, back);
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], dtype::round_to(DType::Bf16, x[i]));
    EXPECT_EQ(get(m.dram, m.tensor_base.at(1) + 4 + 10 * 2, DType::Bf16), 0.0f) << "row padding untouched";
    inst.set(DMA::dst, sbuf_tile(DType::Fp32, 0, 6, 0, 9));
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);
}

}  // namespace
}  // namespace nsim::sim::core::test
