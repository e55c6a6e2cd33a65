#include "train/gradient_all_reduce.h"

#include <algorithm>
#include <stdexcept>

#include "train/phase_marks.h"
#include "train/training_step.h"

namespace nsim::kernels::train {
namespace {
constexpr const char* kBucketPrefix = "gradient bucket ";
}  // namespace

bool is_gradient_bucket(const std::string& tensor_name) { return tensor_name.rfind(kBucketPrefix, 0) == 0; }

std::vector<GradientBucket> gradient_buckets(const builder::ProgramBuilder& program, const std::vector<uint32_t>& gradients,
                                             uint64_t cap) {
    std::vector<GradientBucket> buckets;
    uint64_t total = 0;
    for (uint32_t i = uint32_t(gradients.size()); i-- > 0;) {
        const uint64_t bytes = program.tensor(gradients[i]).size_bytes();
        total += bytes;
        if (buckets.empty() || (total > cap && buckets.back().first != buckets.back().end)) {
            buckets.push_back({i + 1, i + 1, 0});
            total = bytes;
        }
        GradientBucket& b = buckets.back();
        b.first = i;
        const isa::TensorInfo& first = program.tensor(gradients[i]);
        if (b.end > i + 1) {
            const isa::TensorInfo& next = program.tensor(gradients[i + 1]);
            if (next.offset < first.offset + bytes || next.offset - (first.offset + bytes) >= 64)
                throw std::logic_error("gradient all-reduce: " + first.name + " and " + next.name +
                                       " are not consecutive in device memory");
        }
        const isa::TensorInfo& last = program.tensor(gradients[b.end - 1]);
        b.bytes = last.offset + last.size_bytes() - first.offset;
    }
    return buckets;
}

namespace {

// The buckets' alias tensors, by bucket.
std::vector<uint32_t> add_bucket_aliases(builder::ProgramBuilder& program, const std::vector<uint32_t>& gradients,
                                         const std::vector<GradientBucket>& buckets) {
    std::vector<uint32_t> aliases;
    for (size_t k = 0; k < buckets.size(); ++k)
        aliases.push_back(program.add_alias(kBucketPrefix + std::to_string(k), isa::TensorRole::Scratch, isa::DType::Fp32,
                                            {1, buckets[k].bytes / 4}, gradients[buckets[k].first]));
    return aliases;
}

// Elements [first, first + count) of bucket alias `alias` of `elements`.
builder::View bucket_part(uint32_t alias, uint64_t elements, uint64_t first, uint64_t count) {
    return builder::dram(builder::dram_rows(alias, isa::DType::Fp32, elements, 0, 1, first, uint32_t(count)));
}

}  // namespace

std::vector<GradientBucket> gradient_all_reduce(builder::ProgramBuilder& program, const std::vector<uint32_t>& gradients,
                                                uint32_t cores, uint64_t bucket_bytes,
                                                std::vector<std::string>& phase_names) {
    const std::vector<GradientBucket> buckets = gradient_buckets(program, gradients, bucket_bytes);
    const std::vector<uint32_t> aliases = add_bucket_aliases(program, gradients, buckets);
    program.begin_graph(kAllReduceGraph);
    builder::CoreBuilder& core = program.core(0);
    builder::DmaChannel& channel = core.dma_channel("all-reduce", 0);
    for (size_t k = 0; k < buckets.size(); ++k) {
        const uint64_t elements = buckets[k].bytes / 4;
        const builder::View sums = bucket_part(aliases[k], elements, 0, elements);
        core.all_reduce(channel, sums, sums, isa::ReduceOp::Add, 0, cores);
    }
    PhaseMarks{core, phase_names}.end(kAllReducePhase);
    return buckets;
}

BucketShards bucket_shards(uint64_t elements, uint32_t cores) {
    const uint32_t ranks = std::max(1u, cores);
    return {elements / ranks, elements % ranks};
}

std::vector<GradientBucket> gradient_reduce_scatter_all_gather(builder::ProgramBuilder& program,
                                                               const std::vector<uint32_t>& gradients, uint32_t cores,
                                                               uint64_t bucket_bytes, std::vector<std::string>& phase_names) {
    const std::vector<GradientBucket> buckets = gradient_buckets(program, gradients, bucket_bytes);
    const std::vector<uint32_t> aliases = add_bucket_aliases(program, gradients, buckets);
    if (cores <= 1) return buckets;
    for (const char* graph : {kReduceScatterGraph, kAllGatherGraph}) {
        program.begin_graph(graph);
        builder::CoreBuilder& core = program.core(0);
        builder::DmaChannel& channel = core.dma_channel(graph, 0);
        for (size_t k = 0; k < buckets.size(); ++k) {
            const uint64_t elements = buckets[k].bytes / 4;
            const BucketShards s = bucket_shards(elements, cores);
            // In place: a collective reads every rank's source before it writes (sim/core's collective data).
            const builder::View shard = bucket_part(aliases[k], elements, 0, s.shard);
            const builder::View shards = bucket_part(aliases[k], elements, 0, s.shard * cores);
            if (graph == kAllGatherGraph) {
                if (s.shard > 0) core.all_gather(channel, shards, shard, 0, cores);
                continue;
            }
            if (s.shard > 0) core.reduce_scatter(channel, shard, shards, isa::ReduceOp::Add, 0, cores);
            if (s.tail == 0) continue;
            const builder::View tail = bucket_part(aliases[k], elements, s.shard * cores, s.tail);
            core.all_reduce(channel, tail, tail, isa::ReduceOp::Add, 0, cores);
        }
        PhaseMarks{core, phase_names}.end(kAllReducePhase);
    }
    return buckets;
}

}  // namespace nsim::kernels::train
