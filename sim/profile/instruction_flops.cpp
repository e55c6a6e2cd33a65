#include "profile/instruction_flops.h"

#include "core/tensor_engine_timing.h"
#include "isa/opcode_table.h"

namespace nsim::sim::profile {
namespace {

// Seconds `flops` of `dtype` take at the core's peak; 0 when the chip has no peak for that type.
double at_peak(const config::NeuronCoreSpec* spec, isa::DType dtype, double flops) {
    if (!spec) return 0;
    try {
        const auto peak = spec->tensor.peak_flops.find(core::tensor_dtype_key(dtype));
        return peak != spec->tensor.peak_flops.end() && peak->second > 0 ? flops / peak->second : 0;
    } catch (const core::TensorShapeError&) {
        return 0;  // not a tensor-engine type: the validator refuses such a program anyway
    }
}

FlopCount count(const config::NeuronCoreSpec* spec, isa::DType dtype, double flops) {
    return {flops, at_peak(spec, dtype, flops), 1};
}

}  // namespace

FlopCount& FlopCount::operator+=(const FlopCount& other) {
    flops += other.flops;
    peak_seconds += other.peak_seconds;
    instructions += other.instructions;
    return *this;
}

FlopCount CoreFlops::hardware() const {
    FlopCount sum = model;
    sum += transpose;
    return sum;
}

std::vector<CoreFlops> flops_per_core(const isa::Container& program, const config::NeuronCoreSpec* spec, uint32_t graph) {
    std::vector<CoreFlops> flops(program.cores_needed);
    for (const isa::InstructionStream& stream : program.streams) {
        if (stream.core >= flops.size() || stream.engine != isa::Engine::Pe || stream.graph != graph) continue;
        for (const isa::Instruction& instruction : stream.instructions) {
            if (instruction.opcode == isa::Opcode::Matmul) {
                namespace F = isa::fields::Matmul;
                const isa::AccessPattern& stationary = instruction.ap(F::stationary);
                const isa::AccessPattern& moving = instruction.ap(F::moving);
                const double work = 2.0 * double(stationary.partition_count) * double(stationary.free_elements()) *
                                    double(moving.free_elements());
                flops[stream.core].model += count(spec, moving.dtype, work);
            } else if (instruction.opcode == isa::Opcode::Transpose) {
                const isa::AccessPattern& src = instruction.ap(isa::fields::Transpose::src);
                const double p = double(src.partition_count);
                flops[stream.core].transpose += count(spec, src.dtype, 2.0 * p * double(src.free_elements()) * p);
            }
        }
    }
    return flops;
}

}  // namespace nsim::sim::profile
