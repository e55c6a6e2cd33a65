// BERT's building blocks as instruction sequences (program order, no engines): layernorm from
// bn_stats/bn_aggr, masked softmax, and a bf16 projection with bias + GELU evacuated from PSUM,
// each against a double-precision reference of the textbook formula.
// Tolerances: fp32 blocks within 1e-5 relative (+1e-6 absolute near zero): a handful of fp32
// roundings per element plus fp32 sums of <= 768 terms; the BERT fp32 target is 1e-4. The bf16
// block within 1 bf16 ulp of the rounded reference (the fp32 pre-activation differs from the double
// one only by accumulation error, far below a bf16 ulp).
#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

using isa::ActivationFunction;
using isa::AluOp;
using isa::Opcode;
using isa::ReduceOp;

struct Program {
    Machine& m;
    void run(const isa::Instruction& inst) { execute(inst, m.spaces()); }
};

AccessPattern col(uint32_t rows, uint64_t offset) { return sbuf_tile(DType::Fp32, 0, rows, offset, 1); }

TEST(BuildingBlocks, LayernormFp32) {
    Machine m;
    Program prog{m};
    std::mt19937 rng(500);
    const uint32_t rows = 128, n = 768;
    const float eps = 1e-12f;
    std::vector<float> x = random_values(rng, DType::Fp32, rows * n, -3, 3);
    for (uint32_t p = 0; p < rows; ++p)
        for (uint32_t f = 0; f < n; ++f) x[p * n + f] += 0.01f * float(p);  // a different mean per row
    const std::vector<float> gamma = random_values(rng, DType::Fp32, n, 0.5f, 1.5f);
    const std::vector<float> beta = random_values(rng, DType::Fp32, n, -0.5f, 0.5f);
    const AccessPattern xs = sbuf_tile(DType::Fp32, 0, rows, 0, n);
    store_rows(m, xs, x);
    store_rows(m, tensor(MemorySpace::Dram, DType::Fp32, 1, 1, 0, 0, {{1, n}}), gamma);
    store_rows(m, tensor(MemorySpace::Dram, DType::Fp32, 2, 1, 0, 0, {{1, n}}), beta);
    const AccessPattern g = sbuf_tile(DType::Fp32, 0, rows, 4096, n), b = sbuf_tile(DType::Fp32, 0, rows, 8192, n);
    const AccessPattern y = sbuf_tile(DType::Fp32, 0, rows, 12288, n);
    const uint64_t stats = 16384, mv = 16448, rstd = 16456;

    isa::Instruction dma = make(Opcode::DmaCopy);  // gamma and beta broadcast to every partition
    prog.run(dma.set(0, g).set(1, tensor(MemorySpace::Dram, DType::Fp32, 1, rows, 0, 0, {{1, n}})));
    prog.run(dma.set(0, b).set(1, tensor(MemorySpace::Dram, DType::Fp32, 2, rows, 0, 0, {{1, n}})));
    isa::Instruction bs = make(Opcode::BnStats);
    prog.run(bs.set(isa::fields::BnStats::dst, sbuf_tile(DType::Fp32, 0, rows, stats, 6)).set(isa::fields::BnStats::src, xs));
    isa::Instruction ba = make(Opcode::BnAggr);
    prog.run(ba.set(isa::fields::BnAggr::dst, sbuf_tile(DType::Fp32, 0, rows, mv, 2))
                 .set(isa::fields::BnAggr::src, sbuf_tile(DType::Fp32, 0, rows, stats, 6)));
    namespace TS = isa::fields::TensorScalar;
    isa::Instruction add_eps = make(Opcode::TensorScalar);
    add_eps.set(TS::dst, col(rows, rstd)).set(TS::src, col(rows, mv + 4)).set_enum(TS::op0, AluOp::Add);
    prog.run(add_eps.set_f32(TS::imm0, eps).set_enum(TS::op1, AluOp::Bypass));
    namespace ACT = isa::fields::Activation;
    isa::Instruction rsqrt = make(Opcode::Activation);
    rsqrt.set(ACT::dst, col(rows, rstd)).set(ACT::src, col(rows, rstd)).set_enum(ACT::func, ActivationFunction::Rsqrt);
    prog.run(rsqrt.set_f32(ACT::scale, 1.0f));
    namespace TPS = isa::fields::TensorPartitionScalar;
    isa::Instruction normalise = make(Opcode::TensorPartitionScalar);
    normalise.set(TPS::dst, y).set(TPS::src, xs).set_enum(TPS::op0, AluOp::Subtract).set(TPS::scalar0, col(rows, mv));
    prog.run(normalise.set_enum(TPS::op1, AluOp::Multiply).set(TPS::scalar1, col(rows, rstd)));
    namespace TT = isa::fields::TensorTensor;
    isa::Instruction mul = make(Opcode::TensorTensor);
    prog.run(mul.set(TT::dst, y).set(TT::src0, y).set(TT::src1, g).set_enum(TT::op, AluOp::Multiply));
    prog.run(mul.set(TT::src1, b).set_enum(TT::op, AluOp::Add));

    const std::vector<float> got = load_rows(m, y);
    for (uint32_t p = 0; p < rows; ++p) {
        double mean = 0, var = 0;
        for (uint32_t f = 0; f < n; ++f) mean += x[p * n + f];
        mean /= n;
        for (uint32_t f = 0; f < n; ++f) var += (x[p * n + f] - mean) * (x[p * n + f] - mean);
        var /= n;
        for (uint32_t f = 0; f < n; ++f) {
            const double want = (x[p * n + f] - mean) / std::sqrt(var + eps) * gamma[f] + beta[f];
            ASSERT_NEAR(got[p * n + f], want, 1e-5 * std::fabs(want) + 1e-6) << p << "," << f;
        }
    }
}

TEST(BuildingBlocks, MaskedSoftmaxFp32) {
    Machine m;
    Program prog{m};
    std::mt19937 rng(501);
    const uint32_t rows = 128, n = 128, valid = 100;
    const std::vector<float> s = random_values(rng, DType::Fp32, rows * n, -8, 8);
    const AccessPattern scores = sbuf_tile(DType::Fp32, 0, rows, 0, n), probs = sbuf_tile(DType::Fp32, 0, rows, 1024, n);
    store_rows(m, scores, s);
    const uint64_t rowmax = 4096, sum = 4100, rsum = 4104;
    namespace AS = isa::fields::AffineSelect;
    isa::Instruction mask = make(Opcode::AffineSelect);  // keys i >= valid get -10000 added... here: replaced
    mask.set(AS::dst, scores).set(AS::src, scores).set_enum(AS::cmp, AluOp::IsGt).set_i32(AS::base, valid);
    prog.run(mask.set_i32(AS::partition_step, 0).set_i32(AS::free_step, -1).set_f32(AS::fill, -10000.0f));
    namespace TR = isa::fields::TensorReduce;
    isa::Instruction max = make(Opcode::TensorReduce);
    prog.run(max.set(TR::dst, col(rows, rowmax)).set(TR::src, scores).set_enum(TR::op, ReduceOp::Max));
    namespace TS = isa::fields::TensorScalar;
    isa::Instruction negate = make(Opcode::TensorScalar);
    negate.set(TS::dst, col(rows, rowmax)).set(TS::src, col(rows, rowmax)).set_enum(TS::op0, AluOp::Multiply);
    prog.run(negate.set_f32(TS::imm0, -1.0f).set_enum(TS::op1, AluOp::Bypass));
    namespace ACT = isa::fields::Activation;
    isa::Instruction exp = make(Opcode::Activation);
    exp.set(ACT::dst, probs).set(ACT::src, scores).set_enum(ACT::func, ActivationFunction::Exp).set_f32(ACT::scale, 1.0f);
    prog.run(exp.set(ACT::bias, col(rows, rowmax)).set_enum(ACT::reduce_op, ReduceOp::Add).set(ACT::reduce_dst, col(rows, sum)));
    isa::Instruction recip = make(Opcode::Activation);
    recip.set(ACT::dst, col(rows, rsum)).set(ACT::src, col(rows, sum)).set_enum(ACT::func, ActivationFunction::Reciprocal);
    prog.run(recip.set_f32(ACT::scale, 1.0f));
    namespace TPS = isa::fields::TensorPartitionScalar;
    isa::Instruction scale = make(Opcode::TensorPartitionScalar);
    scale.set(TPS::dst, probs).set(TPS::src, probs).set_enum(TPS::op0, AluOp::Multiply).set(TPS::scalar0, col(rows, rsum));
    prog.run(scale);

    const std::vector<float> got = load_rows(m, probs);
    for (uint32_t p = 0; p < rows; ++p) {
        double top = -1e300, total = 0;
        for (uint32_t i = 0; i < valid; ++i) top = std::max(top, double(s[p * n + i]));
        for (uint32_t i = 0; i < valid; ++i) total += std::exp(s[p * n + i] - top);
        for (uint32_t i = 0; i < n; ++i) {
            const double want = i < valid ? std::exp(s[p * n + i] - top) / total : 0.0;
            ASSERT_NEAR(got[p * n + i], want, 1e-5 * want + 1e-12) << p << "," << i;
        }
    }
}

TEST(BuildingBlocks, Bf16ProjectionWithBiasAndGeluFromPsum) {
    Machine m;
    Program prog{m};
    std::mt19937 rng(502);
    const uint32_t k = 128, out = 64, tokens = 256;
    const std::vector<float> w = random_values(rng, DType::Bf16, k * out, -0.1f, 0.1f);     // [k, out]
    const std::vector<float> xt = random_values(rng, DType::Bf16, k * tokens, -1.0f, 1.0f); // [k, tokens]
    const std::vector<float> bias = random_values(rng, DType::Fp32, out, -0.2f, 0.2f);
    store_rows(m, sbuf_tile(DType::Bf16, 0, k, 0, out), w);
    store_rows(m, sbuf_tile(DType::Bf16, 0, k, 1024, tokens), xt);
    store_rows(m, sbuf_tile(DType::Fp32, 0, out, 4096, 1), bias);
    namespace MM = isa::fields::Matmul;
    isa::Instruction mm = make(Opcode::Matmul);
    mm.set(MM::dst, psum(DType::Fp32, 0, out, 0, {{1, tokens}})).set(MM::stationary, sbuf_tile(DType::Bf16, 0, k, 0, out));
    prog.run(mm.set(MM::moving, sbuf_tile(DType::Bf16, 0, k, 1024, tokens)).set_enum(MM::acc, isa::AccumulateMode::Overwrite));
    namespace ACT = isa::fields::Activation;
    isa::Instruction gelu = make(Opcode::Activation);
    gelu.set(ACT::dst, sbuf_tile(DType::Bf16, 0, out, 8192, tokens)).set(ACT::src, psum(DType::Fp32, 0, out, 0, {{1, tokens}}));
    prog.run(gelu.set_enum(ACT::func, ActivationFunction::Gelu).set_f32(ACT::scale, 1.0f).set(ACT::bias, sbuf_tile(DType::Fp32, 0, out, 4096, 1)));

    const std::vector<float> got = load_rows(m, sbuf_tile(DType::Bf16, 0, out, 8192, tokens));
    for (uint32_t o = 0; o < out; ++o)
        for (uint32_t t = 0; t < tokens; ++t) {
            double z = bias[o];
            for (uint32_t i = 0; i < k; ++i) z += double(w[i * out + o]) * xt[i * tokens + t];
            const double want = 0.5 * z * (1 + std::erf(z / std::sqrt(2.0)));
            ASSERT_LE(std::fabs(got[o * tokens + t] - dtype::round_to(DType::Bf16, float(want))),
                      ulp_of(DType::Bf16, want) * 1.001) << o << "," << t;
        }
}

}  // namespace
}  // namespace nsim::sim::core::test
