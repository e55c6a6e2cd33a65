// Reductions: along the free axis (tensor_reduce), across partitions (partition_reduce), the
// layernorm statistics (bn_stats, bn_aggr), and combine() for the engines' collectives.
// All fold in fp32, left to right (element_ops.h): the hardware's order is not public, and a fixed
// sequential order makes results reproducible and easy to check.
#include <string>

#include "core/semantics/element_ops.h"
#include "core/semantics/opcode_semantics.h"

namespace nsim::sim::core {

// dst[p] = reduce(src[p, :]) over every free element, in pattern order.
void execute_TensorReduce(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::TensorReduce;
    const Tile src = read_operand(inst, F::src, spaces);
    require_elements(inst, F::dst, src.partitions, "one per source partition");
    Tile dst = make_tile(src.partitions, 1);
    with_reduce(inst.reduce(F::op), [&](auto op) {
        for (uint32_t p = 0; p < src.partitions; ++p) {
            const float* row = &src.values[p * src.free];
            float acc = src.free ? row[0] : 0.0f;
            for (uint64_t f = 1; f < src.free; ++f) acc = reduce_step<decltype(op)::value>(acc, row[f]);
            dst.values[p] = acc;
        }
    });
    write_operand(inst, F::dst, dst, spaces);
}

// dst[0, f] = reduce(src[:, f]), partitions in ascending order.
void execute_PartitionReduce(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::PartitionReduce;
    const Tile src = read_operand(inst, F::src, spaces);
    require_elements(inst, F::dst, src.free, "one per source free element");
    Tile dst = make_tile(1, src.free);
    if (src.partitions > 0) {
        std::copy(src.values.begin(), src.values.begin() + src.free, dst.values.begin());
        with_reduce(inst.reduce(F::op), [&](auto op) {
            for (uint32_t p = 1; p < src.partitions; ++p) {
                const float* row = &src.values[p * src.free];
                for (uint64_t f = 0; f < src.free; ++f)
                    dst.values[f] = reduce_step<decltype(op)::value>(dst.values[f], row[f]);
            }
        });
    }
    write_operand(inst, F::dst, dst, spaces);
}

// bn_stats. NKI documents a 6-element statistics record per partition whose layout is not public;
// the simulator's (the ISA comment's) is: dst row = G groups of (count, mean, m2), G = dst free
// size / 3. The source row is cut into G consecutive chunks, chunk g holding elements
// [g*N/G, (g+1)*N/G) (integer division, sizes differ by at most one). mean = fp32 sum / count;
// m2 = fp32 sum of (x - mean)^2 (two passes, so no cancellation); an empty chunk is (0, 0, 0).
void execute_BnStats(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::BnStats;
    const Tile src = read_operand(inst, F::src, spaces);
    const isa::AccessPattern& dst_ap = inst.ap(F::dst);
    const uint64_t record = dst_ap.free_elements();
    if (dst_ap.partition_count != src.partitions || record == 0 || record % 3 != 0)
        fail_operand(inst, F::dst, "is " + std::to_string(dst_ap.partition_count) + "x" + std::to_string(record) +
                                       ", needs " + std::to_string(src.partitions) +
                                       " partitions of (count, mean, m2) groups (a multiple of 3 elements)");
    const uint64_t groups = record / 3, n = src.free;
    Tile dst = make_tile(src.partitions, record);
    for (uint32_t p = 0; p < src.partitions; ++p) {
        const float* row = &src.values[p * n];
        for (uint64_t g = 0; g < groups; ++g) {
            const uint64_t begin = g * n / groups, end = (g + 1) * n / groups;
            float* out = &dst.values[p * record + 3 * g];
            if (begin == end) continue;
            const float count = float(end - begin);
            float sum = 0.0f;
            for (uint64_t i = begin; i < end; ++i) sum += row[i];
            const float mean = sum / count;
            float m2 = 0.0f;
            for (uint64_t i = begin; i < end; ++i) {
                const float d = row[i] - mean;
                m2 += d * d;
            }
            out[0] = count;
            out[1] = mean;
            out[2] = m2;
        }
    }
    write_operand(inst, F::dst, dst, spaces);
}

// bn_aggr: dst[p] = (mean, variance) of all (count, mean, m2) groups of src row p, merged in order
// with Chan et al.'s pairwise update in fp32; variance is the population variance m2 / count (what
// layernorm divides by). Groups with count 0 are skipped; no samples at all gives (0, 0).
void execute_BnAggr(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::BnAggr;
    const Tile src = read_operand(inst, F::src, spaces);
    if (src.free == 0 || src.free % 3 != 0)
        fail_operand(inst, F::src, "has " + std::to_string(src.free) +
                                       " elements per partition, needs whole (count, mean, m2) groups");
    const isa::AccessPattern& dst_ap = inst.ap(F::dst);
    if (dst_ap.partition_count != src.partitions || dst_ap.free_elements() != 2)
        fail_operand(inst, F::dst, "is " + std::to_string(dst_ap.partition_count) + "x" +
                                       std::to_string(dst_ap.free_elements()) + ", needs " +
                                       std::to_string(src.partitions) + "x2 (mean, variance)");
    Tile dst = make_tile(src.partitions, 2);
    for (uint32_t p = 0; p < src.partitions; ++p) {
        const float* row = &src.values[p * src.free];
        float count = 0.0f, mean = 0.0f, m2 = 0.0f;
        for (uint64_t g = 0; g < src.free / 3; ++g) {
            const float c = row[3 * g], m = row[3 * g + 1], s = row[3 * g + 2];
            if (c == 0.0f) continue;
            const float total = count + c;
            const float delta = m - mean;
            mean = mean + delta * (c / total);
            m2 = m2 + s + delta * delta * (count * c / total);
            count = total;
        }
        dst.values[2 * p] = mean;
        dst.values[2 * p + 1] = count > 0.0f ? m2 / count : 0.0f;
    }
    write_operand(inst, F::dst, dst, spaces);
}

void combine(isa::ReduceOp op, Tile& accumulator, const Tile& operand) {
    if (accumulator.values.size() != operand.values.size())
        throw SemanticsError("combining " + std::to_string(operand.values.size()) + " values into " +
                             std::to_string(accumulator.values.size()));
    try {
        with_reduce(op, [&](auto o) {
            for (size_t i = 0; i < operand.values.size(); ++i)
                accumulator.values[i] = reduce_step<decltype(o)::value>(accumulator.values[i], operand.values[i]);
        });
    } catch (const std::invalid_argument& e) {
        throw SemanticsError(e.what());
    }
}

}  // namespace nsim::sim::core
