#include "train/gradient_all_reduce.h"

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

std::vector<GradientBucket> gradient_all_reduce(builder::ProgramBuilder& program, const std::vector<uint32_t>& gradients,
                                                uint32_t cores, uint64_t bucket_bytes,
                                                std::vector<std::string>& phase_names) {
    const std::vector<GradientBucket> buckets = gradient_buckets(program, gradients, bucket_bytes);
    program.begin_graph(kAllReduceGraph);
    builder::CoreBuilder& core = program.core(0);
    builder::DmaChannel& channel = core.dma_channel("all-reduce", 0);
    for (size_t k = 0; k < buckets.size(); ++k) {
        const uint64_t elements = buckets[k].bytes / 4;
        const uint32_t alias = program.add_alias(kBucketPrefix + std::to_string(k), isa::TensorRole::Scratch,
                                                 isa::DType::Fp32, {1, elements}, gradients[buckets[k].first]);
        const builder::View sums = builder::dram(builder::dram_rows(alias, isa::DType::Fp32, elements, 0, 1, 0, elements));
        core.all_reduce(channel, sums, sums, isa::ReduceOp::Add, 0, cores);
    }
    PhaseMarks{core, phase_names}.end(kAllReducePhase);
    return buckets;
}

}  // namespace nsim::kernels::train
