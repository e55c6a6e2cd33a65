// CONTRACT between the engines (sim/core) and the functional semantics (sim/core/semantics):
// what one instruction computes, independent of when it runs. The engines call these only in
// functional mode; timing-only runs never touch data.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/host_spec.h"
#include "isa/access_pattern.h"
#include "isa/instruction.h"
#include "core/semantics/dropout_generator.h"
#include "core/semantics/rounding_state.h"
#include "platform/sparse_memory.h"

namespace nsim::sim::core {

// Where a DRAM or HOST operand's tensor lives: the backing memory and the byte offset of element 0.
struct TensorLocation {
    SparseMemory* memory = nullptr;
    uint64_t base = 0;
};

// The memories one core's instructions can name. SBUF and PSUM are partitioned: partition p
// occupies bytes [p * partition_bytes, (p + 1) * partition_bytes) of the storage.
struct MemorySpaces {
    SparseMemory* sbuf = nullptr;
    uint64_t sbuf_partition_bytes = 0;
    SparseMemory* psum = nullptr;
    uint64_t psum_partition_bytes = 0;
    // Resolves a DRAM/HOST operand's tensor index (from the container's tensor table).
    std::function<TensorLocation(isa::MemorySpace space, uint32_t tensor)> tensor_location;
    // How writes of this core round into narrow float types (set_rounding). Each MemorySpaces made
    // has its own, nearest-even until the program says otherwise; copies share it.
    std::shared_ptr<RoundingState> rounding = std::make_shared<RoundingState>();
    // The Vector Engine's dropout generator (set_rng_seed, dropout); the same sharing.
    std::shared_ptr<DropoutGenerator> dropout = std::make_shared<DropoutGenerator>();
};

// A dense [partitions][free elements] block of values in fp32, in access-pattern order.
struct Tile {
    uint32_t partitions = 0;
    uint64_t free = 0;
    std::vector<float> values;  // partitions * free
    float& at(uint32_t p, uint64_t f) { return values[p * free + f]; }
    float at(uint32_t p, uint64_t f) const { return values[p * free + f]; }
};

// An instruction that cannot be carried out as written: operand shapes that do not fit together
// beyond what isa::validate checks, an address outside its memory, a missing memory. The message is
// one line naming the opcode and operand; engines turn it into the run's error.
class SemanticsError : public std::runtime_error {
public:
    explicit SemanticsError(const std::string& message) : std::runtime_error(message) {}
};

// Reads an operand, converting each element from its dtype to fp32.
Tile read_tile(const isa::AccessPattern& ap, const MemorySpaces& spaces);
// Writes an operand, rounding each fp32 value to its dtype the way the hardware does: to nearest
// even, or stochastically into bf16/fp16/fp8 while the core's rounding state says so.
void write_tile(const isa::AccessPattern& ap, const Tile& tile, const MemorySpaces& spaces);
// Moves elements from src to dst as a DMA does: raw bytes when the dtypes match, converted otherwise.
void copy_elements(const isa::AccessPattern& dst, const isa::AccessPattern& src, const MemorySpaces& spaces);

// dma_gather's indices (int32, in access-pattern order), each checked against the table's rows:
// SemanticsError naming the first index outside them. The engines check them in timing runs too.
std::vector<int32_t> gather_row_indices(const isa::Instruction& instruction, const MemorySpaces& spaces);

// Executes one compute instruction (tensor, scalar, vector, gpsimd engine opcodes, and dma_copy
// within the core's spaces). Collectives and synchronisation are the engines' business.
void execute(const isa::Instruction& instruction, const MemorySpaces& spaces);

// Whether execute() computes anything for this opcode. False for synchronisation (nop, sem_set,
// barrier: no data effect, execute() returns at once) and for collectives and send/recv, which
// need more than one core's spaces (execute() throws std::logic_error; the engines compose them
// from read_tile / write_tile / copy_elements and combine()).
bool is_executed_by_semantics(isa::Opcode opcode);

// accumulator[i] = accumulator[i] op operand[i] in fp32 (op != none), for all_reduce/reduce_scatter.
// Throws SemanticsError when the tiles hold different numbers of elements.
void combine(isa::ReduceOp op, Tile& accumulator, const Tile& operand);

}  // namespace nsim::sim::core
