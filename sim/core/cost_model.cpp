#include "core/cost_model.h"

#include <algorithm>
#include <stdexcept>

#include "core/engine_roles.h"

namespace nsim::sim::core {
namespace {

uint64_t ceil_div(uint64_t value, uint64_t divisor) { return divisor == 0 ? 0 : (value + divisor - 1) / divisor; }

// Free elements per partition of the first operand the instruction reads; instructions that only
// write (memset, iota) stream their destination.
uint64_t streamed_elements(const isa::Instruction& inst) {
    const isa::OpcodeInfo& op = isa::info(inst.opcode);
    const isa::AccessPattern* written = nullptr;
    for (size_t f = 0; f < op.field_count; ++f) {
        if (op.fields[f].kind != isa::FieldKind::AccessPattern || !inst.ap(f).present()) continue;
        if (op.fields[f].access == isa::FieldAccess::Read) return inst.ap(f).free_elements();
        if (!written) written = &inst.ap(f);
    }
    return written ? written->free_elements() : 0;
}

bool every_operand_16bit(const isa::Instruction& inst) {
    const isa::OpcodeInfo& op = isa::info(inst.opcode);
    bool any = false;
    for (size_t f = 0; f < op.field_count; ++f) {
        if (op.fields[f].kind != isa::FieldKind::AccessPattern || !inst.ap(f).present()) continue;
        if (isa::size_in_bytes(inst.ap(f).dtype) != 2) return false;
        any = true;
    }
    return any;
}

// NKI2: SBUF/PSUM stream at full rate only while the innermost stride is small.
bool has_slow_on_chip_operand(const isa::Instruction& inst, uint32_t full_rate_stride_bytes) {
    if (full_rate_stride_bytes == 0) return false;
    const isa::OpcodeInfo& op = isa::info(inst.opcode);
    for (size_t f = 0; f < op.field_count; ++f) {
        if (op.fields[f].kind != isa::FieldKind::AccessPattern) continue;
        const isa::AccessPattern& ap = inst.ap(f);
        if (!ap.present() || !isa::is_partitioned(ap.space) || ap.dim_count == 0) continue;
        const isa::Dim& inner = ap.dims[ap.dim_count - 1];
        if (inner.count < 2) continue;
        const uint64_t stride_bytes = uint64_t(std::abs(int64_t(inner.stride))) * isa::size_in_bytes(ap.dtype);
        if (stride_bytes > full_rate_stride_bytes) return true;
    }
    return false;
}

// NKI2 / ISA-OLD tensor_tensor: one pass when one input comes from PSUM and the other from SBUF
// (two read ports), two passes otherwise.
uint32_t input_passes(const isa::Instruction& inst) {
    const isa::OpcodeInfo& op = isa::info(inst.opcode);
    unsigned sbuf = 0, psum = 0;
    for (size_t f = 0; f < op.field_count; ++f) {
        if (op.fields[f].kind != isa::FieldKind::AccessPattern || op.fields[f].access != isa::FieldAccess::Read)
            continue;
        const isa::AccessPattern& ap = inst.ap(f);
        if (!ap.present()) continue;
        if (ap.space == isa::MemorySpace::Psum) ++psum;
        else ++sbuf;
    }
    return (sbuf == 1 && psum == 1) ? 1 : 2;
}

}  // namespace

CostModel::CostModel(const config::NeuronCoreSpec& core) : core_(core) {
    for (size_t e = 0; e < isa::engine_count(); ++e) {
        const isa::Engine engine = isa::Engine(e);
        if (engine == isa::Engine::Dma) continue;
        const config::EngineSpec* spec = find_engine(core, engine);
        if (!spec) continue;
        EngineParameters& p = engines_[e];
        p.present = true;
        p.clock_hz = spec->clock_hz;
        p.ps_per_cycle = 1e12 / spec->clock_hz;
        p.elements_per_cycle = spec->elements_per_cycle;
        p.elements_per_cycle_16bit = spec->elements_per_cycle_16bit ? spec->elements_per_cycle_16bit
                                                                    : spec->elements_per_cycle;
        p.min_cycles = spec->min_instruction_cycles;
        p.overhead_cycles = spec->instruction_overhead_cycles;
        p.result_latency_cycles = spec->result_latency_cycles ? spec->result_latency_cycles : core.sram_access_latency_cycles;
    }
}

bool CostModel::has_engine(isa::Engine engine) const {
    if (engine == isa::Engine::Dma) return core_.dma_engines > 0;
    return engines_[index(engine)].present;
}

double CostModel::clock_hz(isa::Engine engine) const { return engines_[index(engine)].clock_hz; }

uint64_t CostModel::operand_bytes(const isa::AccessPattern& ap) {
    if (!ap.present()) return 0;
    return uint64_t(ap.partition_count) * ap.free_elements() * isa::size_in_bytes(ap.dtype);
}

uint64_t CostModel::stream_cycles(const EngineParameters& e, uint64_t free_elements,
                                  const isa::Instruction& inst) const {
    const uint32_t width = every_operand_16bit(inst) ? e.elements_per_cycle_16bit : e.elements_per_cycle;
    uint64_t cycles = ceil_div(free_elements * core_.sbuf.partitions, width);
    if (has_slow_on_chip_operand(inst, core_.sram_full_rate_stride_bytes)) cycles *= 2;
    return cycles;
}

InstructionCost CostModel::tensor_engine(const isa::Instruction& inst, TensorEngineState* pe,
                                         bool back_to_back) const {
    if (inst.opcode == isa::Opcode::Transpose) {
        const isa::AccessPattern& src = inst.ap(isa::fields::Transpose::src);
        InstructionCost cost;
        cost.cycles = pe_transpose_cycles(core_, src.partition_count, uint32_t(src.free_elements()), src.dtype);
        cost.latency_cycles = core_.sram_access_latency_cycles;
        if (pe) pe->stationary = isa::AccessPattern{};  // the transpose loaded its own tile
        return cost;
    }
    namespace F = isa::fields::Matmul;
    const isa::AccessPattern& stationary = inst.ap(F::stationary);
    MatmulShape shape;
    shape.contraction = stationary.partition_count;
    shape.stationary_free = uint32_t(stationary.free_elements());
    shape.moving_free = uint32_t(inst.ap(F::moving).free_elements());
    shape.dtype = inst.ap(F::moving).dtype;
    shape.stationary_reused = pe && pe->stationary.present() && pe->stationary == stationary;
    shape.background_load_window = (pe && back_to_back) ? pe->last_stream_cycles : 0;
    const MatmulTiming timing = matmul_timing(core_, shape);
    if (pe) {
        pe->stationary = stationary;
        pe->last_stream_cycles = timing.stream;
    }
    InstructionCost cost;
    cost.cycles = timing.occupancy();
    cost.latency_cycles = timing.latency > timing.stream ? timing.latency - timing.stream : 0;
    return cost;
}

InstructionCost CostModel::compute(const isa::Instruction& inst, isa::Engine engine, TensorEngineState* pe,
                                   bool back_to_back) const {
    const isa::CostClass cost_class = isa::info(inst.opcode).cost;
    // Control instructions on a DMA queue (set_rounding heads every queue of a program that rounds
    // stochastically) are read by its engine between transfers; the queue has no sequencer clock of
    // its own to charge them to (estimate: free, training.md A2.4 assumes SR costs no time).
    if (engine == isa::Engine::Dma && cost_class == isa::CostClass::Control) return {0, 0};
    // A mark only names a point of the program for the statistics: timing it must not change it.
    if (inst.opcode == isa::Opcode::Mark) return {0, 0};
    const EngineParameters& e = engines_[index(engine)];
    if (!e.present) throw std::logic_error("no cost for an engine the core does not have");
    if (cost_class == isa::CostClass::Control) return {core_.control_instruction_cycles, 0};
    if (engine == isa::Engine::Pe) return tensor_engine(inst, pe, back_to_back);

    const uint64_t n = streamed_elements(inst);
    const uint64_t stream = stream_cycles(e, n, inst);
    uint64_t work = 0;
    switch (cost_class) {
        case isa::CostClass::StreamOneInput:
        case isa::CostClass::PeTranspose:  // a transpose on the vector engine streams its source once
            work = std::max<uint64_t>(e.min_cycles, stream);
            break;
        case isa::CostClass::StreamTwoInputs:
            work = std::max<uint64_t>(e.min_cycles, input_passes(inst) * stream);
            break;
        case isa::CostClass::Activation: {
            const bool reduces = inst.reduce(isa::fields::Activation::reduce_op) != isa::ReduceOp::None;
            work = std::max<uint64_t>(e.min_cycles, stream) + (reduces ? e.min_cycles : 0);
            break;
        }
        case isa::CostClass::BnAggregate:
            work = std::max<uint64_t>(e.min_cycles, ceil_div(core_.bn_aggr_cycles_per_3_elements * n, 3));
            break;
        case isa::CostClass::GpsimdStream:
            work = stream;
            break;
        default:
            throw std::logic_error("cost class not timed by an engine");
    }
    return {e.overhead_cycles + work, e.result_latency_cycles};
}

}  // namespace nsim::sim::core
