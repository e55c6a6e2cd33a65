#include "device/attention_kernel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "reference/attention.h"

namespace nsim::kernels::device {
namespace {

constexpr uint32_t kKeyBlockRing = 4;  // > the 3 pipeline stages in flight

struct KeyBlock {
    uint32_t tile = 0, partition = 0, rows = 0, column = 0;  // token tile, first partition, keys, column in the row
};

struct WorkItem {
    uint32_t sequence = 0, head = 0;
    uint32_t first_token = 0, queries = 0;
    std::vector<KeyBlock> keys;
    uint32_t slot = 0;  // scratch ring slot, set by stage 1
};

}  // namespace

float attention_scale(uint32_t head_size) { return float(1.0 / std::sqrt(double(head_size))); }

uint32_t widest_attention_row(const config::NeuronCoreSpec& spec) {
    return std::min(spec.tensor.max_moving_free, uint32_t(spec.psum.bytes_per_partition / spec.psum.banks / 4));
}

AttentionScratch allocate_attention_scratch(CoreBuilder& core, const AttentionShape& shape, const DtypePlan& dtypes) {
    AttentionScratch s;
    s.mask = allocate_attention_mask(core, shape);
    allocate_softmax_ring(core, shape, dtypes, s);
    return s;
}

Buffer allocate_attention_mask(CoreBuilder& core, const AttentionShape& shape) {
    return core.sbuf(uint64_t(shape.batch) * shape.seq * 4, "attention mask");
}

void allocate_softmax_ring(CoreBuilder& core, const AttentionShape& shape, const DtypePlan& dtypes, AttentionScratch& s) {
    s.scores.clear();
    s.stats.clear();
    s.probs.clear();
    s.probs_t.clear();
    const uint32_t queries = core.spec().sbuf.partitions;
    for (uint32_t i = 0; i < kKeyBlockRing; ++i) {
        s.scores.push_back(core.sbuf(uint64_t(shape.seq) * 4, "attention scores"));
        s.stats.push_back(core.sbuf(4 * 4, "softmax statistics"));
        s.probs.push_back(core.sbuf(uint64_t(shape.seq) * isa::size_in_bytes(dtypes.matmul), "attention probabilities"));
        // One column block per key block; a sequence not aligned to the tiles has one more block.
        const uint32_t key_blocks = (shape.seq + queries - 1) / queries + 1;
        s.probs_t.push_back(core.sbuf(uint64_t(key_blocks) * queries * isa::size_in_bytes(dtypes.matmul),
                                      "transposed probabilities"));
    }
}

void build_attention_mask(KernelContext& ctx, const AttentionShape& shape, uint32_t attention_mask,
                          uint32_t first_row, builder::DmaChannel& channel, const Buffer& staging,
                          AttentionScratch& scratch) {
    const uint32_t tokens = shape.batch * shape.seq, partitions = ctx.partitions();
    const View dst = builder::tile(staging, isa::DType::Int32, 0, partitions, 0, tokens);
    const View src = builder::dram(builder::dram_rows(attention_mask, isa::DType::Int32, tokens, 0, partitions,
                                                      uint64_t(first_row) * shape.seq, tokens, 0));
    ctx.core.dma(channel, CoreBuilder::split_rows(dst, src, uint32_t(channel.queues().size())));
    const float masked = -reference::kMaskedScoreBias / attention_scale(shape.head_size);
    ctx.core.tensor_scalar(isa::Engine::Dve, builder::tile(scratch.mask, isa::DType::Fp32, 0, partitions, 0, tokens), dst,
                           isa::AluOp::Subtract, 1.0f, isa::AluOp::Multiply, masked);
}

void self_attention(KernelContext& ctx, const AttentionShape& shape, const TileSet& q_t, const TileSet& k_t,
                    const TileSet& v, const ColumnParams& value_bias, TileSet& context_t, AttentionScratch& scratch,
                    const AttentionDropout& dropout) {
    CoreBuilder& core = ctx.core;
    const uint32_t seq = shape.seq, hs = shape.head_size, tile_rows = v.tile_rows;
    if (seq > widest_attention_row(core.spec()))
        throw std::invalid_argument("sequence length " + std::to_string(seq) + " exceeds a moving tile of " +
                                    std::to_string(widest_attention_row(core.spec())));
    if (tile_rows % hs != 0) throw std::invalid_argument("head size must divide " + std::to_string(tile_rows));
    const float scale = attention_scale(hs);
    const isa::DType mm = ctx.dtypes.matmul;
    const isa::Engine side = ctx.side_engine();

    // Work items: query blocks are the parts of a sequence inside one token tile.
    std::vector<WorkItem> items;
    for (uint32_t b = 0; b < shape.batch; ++b) {
        const uint32_t begin = b * seq, end = begin + seq;
        std::vector<KeyBlock> keys;
        for (uint32_t t = begin; t < end;) {
            const uint32_t tile = t / tile_rows, stop = std::min(end, (tile + 1) * tile_rows);
            keys.push_back({tile, t - tile * tile_rows, stop - t, t - begin});
            t = stop;
        }
        for (uint32_t h = 0; h < shape.heads; ++h)
            for (const KeyBlock& block : keys) {
                WorkItem item;
                item.sequence = b;
                item.head = h;
                item.first_token = b * seq + block.column;
                item.queries = block.rows;
                item.keys = keys;
                items.push_back(item);
            }
    }

    auto head_tile = [&](uint32_t h) { return h * hs / tile_rows; };
    auto head_partition = [&](uint32_t h) { return h * hs % tile_rows; };

    auto scores_and_softmax = [&](WorkItem& it, uint32_t index) {
        it.slot = index % kKeyBlockRing;
        const uint32_t q = it.queries, tile = head_tile(it.head), p0 = head_partition(it.head);
        const uint32_t bank = ctx.psum.next_bank();
        const View scores_psum = psum_tile(core, bank, q, 0, seq);
        core.matmul(scores_psum, q_t.view(tile, p0, hs, it.first_token, q),
                    k_t.view(tile, p0, hs, it.sequence * seq, seq), false);
        const View scores = builder::tile(scratch.scores[it.slot], isa::DType::Fp32, 0, q, 0, seq);
        const Buffer& st = scratch.stats[it.slot];
        const View max = builder::tile(st, isa::DType::Fp32, 0, q, 0, 1);
        const View neg_max = builder::tile(st, isa::DType::Fp32, 0, q, 1, 1);
        const View sum = builder::tile(st, isa::DType::Fp32, 0, q, 2, 1);
        const View inv_sum = builder::tile(st, isa::DType::Fp32, 0, q, 3, 1);
        core.tensor_tensor(isa::Engine::Dve, scores, scores_psum,
                           builder::tile(scratch.mask, isa::DType::Fp32, 0, q, it.sequence * seq, seq), isa::AluOp::Add);
        core.tensor_reduce(isa::Engine::Dve, max, scores, isa::ReduceOp::Max);
        core.tensor_scalar(isa::Engine::Dve, neg_max, max, isa::AluOp::Multiply, -scale);
        core.activation(scores, scores, isa::ActivationFunction::Exp, scale, &neg_max, isa::ReduceOp::Add, &sum);
        core.activation(inv_sum, sum, isa::ActivationFunction::Reciprocal);
        const View probs = builder::tile(scratch.probs[it.slot], mm, 0, q, 0, seq);
        core.tensor_partition_scalar(side, probs, scores, isa::AluOp::Multiply, inv_sum);
        if (dropout.probability > 0)
            core.dropout(probs, probs, dropout.probability, dropout.first_key + it.head, dropout.first_row + it.first_token);
    };

    // Stage 2: P^T per key block through PSUM into SBUF.
    auto transpose = [&](WorkItem& it) {
        const uint32_t q = it.queries;
        const View probs = builder::tile(scratch.probs[it.slot], mm, 0, q, 0, seq);
        uint32_t bank = 0;
        for (size_t k = 0; k < it.keys.size(); ++k) {
            const KeyBlock& kb = it.keys[k];
            if (k % CoreBuilder::kPsumGranules == 0) bank = ctx.psum.next_bank();
            const uint32_t element = uint32_t(k % CoreBuilder::kPsumGranules) * ctx.granule_fp32_elements();
            const View transposed = psum_tile(core, bank, kb.rows, element, q, kb.partition);
            core.pe_transpose(transposed, builder::tile(probs.buffer, mm, 0, q, kb.column, kb.rows));
            core.tensor_copy(isa::Engine::Act,
                             builder::tile(scratch.probs_t[it.slot], mm, kb.partition, kb.rows, k * tile_rows, q).part(),
                             transposed);
        }
    };

    // Stage 3: context = V^T P^T accumulated over the key blocks, + bv, into the context's columns.
    auto context = [&](WorkItem& it) {
        const uint32_t q = it.queries, tile = head_tile(it.head), p0 = head_partition(it.head);
        const View acc = psum_tile(core, ctx.psum.next_bank(), hs, 0, q, p0);
        for (size_t k = 0; k < it.keys.size(); ++k) {
            const KeyBlock& kb = it.keys[k];
            core.matmul(acc, v.view(kb.tile, kb.partition, kb.rows, it.head * hs, hs),
                        builder::tile(scratch.probs_t[it.slot], mm, kb.partition, kb.rows, k * tile_rows, q), k > 0);
        }
        const View bias = builder::tile(value_bias.buffer, isa::DType::Fp32, p0, hs, value_bias.first + tile, 1);
        core.activation(context_t.view(tile, p0, hs, it.first_token, q).part(), acc,
                        isa::ActivationFunction::Identity, 1.0f, &bias);
    };

    for (size_t i = 0; i < items.size() + 2; ++i) {
        if (i < items.size()) scores_and_softmax(items[i], uint32_t(i));
        if (i >= 1 && i - 1 < items.size()) transpose(items[i - 1]);
        if (i >= 2) context(items[i - 2]);
    }
}

}  // namespace nsim::kernels::device
