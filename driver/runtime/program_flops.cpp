#include "program_flops.h"

#include "isa/opcode_table.h"

namespace nsim::runtime {

std::vector<double> matmul_flops_per_core(const isa::Container& program) {
    std::vector<double> flops(program.cores_needed, 0.0);
    namespace F = isa::fields::Matmul;
    for (const isa::InstructionStream& stream : program.streams) {
        if (stream.core >= flops.size()) continue;
        for (const isa::Instruction& instruction : stream.instructions) {
            if (instruction.opcode != isa::Opcode::Matmul) continue;
            const isa::AccessPattern& stationary = instruction.ap(F::stationary);
            const isa::AccessPattern& moving = instruction.ap(F::moving);
            flops[stream.core] += 2.0 * double(stationary.partition_count) * double(stationary.free_elements()) *
                                  double(moving.free_elements());
        }
    }
    return flops;
}

}  // namespace nsim::runtime
