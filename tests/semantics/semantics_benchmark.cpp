// Host-time cost of functional execution (a program, not a test): how fast sim/core/semantics
// computes the instructions a functional BERT run is made of. Run:
//   /work/build-semantics/tests/semantics/semantics_benchmark
#include <benchmark/benchmark.h>

#include <systemc>  // declares sc_main extern "C"

#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

void run(benchmark::State& state, const isa::Instruction& inst, Machine& m, double work_per_run) {
    const MemorySpaces spaces = m.spaces();
    for (auto _ : state) execute(inst, spaces);
    state.counters["work/s"] = benchmark::Counter(work_per_run * double(state.iterations()), benchmark::Counter::kIsRate);
}

// One full PE tile: K=128, M=128, N=512 (work = multiply-accumulates).
void BM_MatmulFullTile(benchmark::State& state) {
    const DType t = DType(state.range(0));
    Machine m;
    std::mt19937 rng(1);
    store_rows(m, sbuf_tile(t, 0, 128, 0, 128), random_values(rng, t, 128 * 128, -1, 1));
    store_rows(m, sbuf_tile(t, 0, 128, 1024, 512), random_values(rng, t, 128 * 512, -1, 1));
    namespace F = isa::fields::Matmul;
    isa::Instruction inst = make(isa::Opcode::Matmul);
    inst.set(F::dst, psum(DType::Fp32, 0, 128, 0, {{1, 512}})).set(F::stationary, sbuf_tile(t, 0, 128, 0, 128));
    inst.set(F::moving, sbuf_tile(t, 0, 128, 1024, 512)).set_enum(F::acc, isa::AccumulateMode::Accumulate);
    state.SetLabel(dtype_name(t) + " MAC/s");
    run(state, inst, m, 128.0 * 128 * 512);
}
BENCHMARK(BM_MatmulFullTile)->Arg(int(DType::Bf16))->Arg(int(DType::Fp32))->Unit(benchmark::kMicrosecond);

// GELU with bias over a [128, 2048] PSUM-sized block into bf16 (work = elements).
void BM_ActivationGelu(benchmark::State& state) {
    Machine m;
    std::mt19937 rng(2);
    store_rows(m, sbuf_tile(DType::Fp32, 0, 128, 0, 2048), random_values(rng, DType::Fp32, 128 * 2048, -3, 3));
    namespace F = isa::fields::Activation;
    isa::Instruction inst = make(isa::Opcode::Activation);
    inst.set(F::dst, sbuf_tile(DType::Bf16, 0, 128, 16384, 2048)).set(F::src, sbuf_tile(DType::Fp32, 0, 128, 0, 2048));
    inst.set_enum(F::func, isa::ActivationFunction::Gelu).set_f32(F::scale, 1.0f);
    inst.set(F::bias, sbuf_tile(DType::Fp32, 0, 128, 32768, 1));
    state.SetLabel("elements/s");
    run(state, inst, m, 128.0 * 2048);
}
BENCHMARK(BM_ActivationGelu)->Unit(benchmark::kMicrosecond);

// Residual add in bf16 over [128, 768] (work = elements).
void BM_TensorTensorAdd(benchmark::State& state) {
    Machine m;
    namespace F = isa::fields::TensorTensor;
    isa::Instruction inst = make(isa::Opcode::TensorTensor);
    inst.set(F::dst, sbuf_tile(DType::Bf16, 0, 128, 0, 768)).set(F::src0, sbuf_tile(DType::Bf16, 0, 128, 0, 768));
    inst.set(F::src1, sbuf_tile(DType::Bf16, 0, 128, 2048, 768)).set_enum(F::op, isa::AluOp::Add);
    state.SetLabel("elements/s");
    run(state, inst, m, 128.0 * 768);
}
BENCHMARK(BM_TensorTensorAdd)->Unit(benchmark::kMicrosecond);

// Activations [128 tokens, 768] fp32 from DRAM into SBUF (work = bytes).
void BM_DmaDramToSbuf(benchmark::State& state) {
    Machine m;
    namespace F = isa::fields::DmaCopy;
    isa::Instruction inst = make(isa::Opcode::DmaCopy);
    inst.set(F::dst, sbuf_tile(DType::Fp32, 0, 128, 0, 768));
    inst.set(F::src, tensor(MemorySpace::Dram, DType::Fp32, 0, 128, 768, 0, {{1, 768}}));
    state.SetLabel("bytes/s");
    run(state, inst, m, 128.0 * 768 * 4);
}
BENCHMARK(BM_DmaDramToSbuf)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace nsim::sim::core::test

int sc_main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
