#include "train/attention_backward.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "train/activation_backward.h"

namespace nsim::kernels::train {
namespace {

using builder::Buffer;
using builder::View;

// A part of one sequence inside one token tile: as keys, and as a block of queries.
struct Block {
    uint32_t tile = 0, partition = 0, rows = 0, column = 0;  // token tile, first partition, tokens, offset in the sequence
};

std::vector<Block> blocks_of(uint32_t sequence, uint32_t seq, uint32_t tile_rows) {
    std::vector<Block> blocks;
    const uint32_t begin = sequence * seq, end = begin + seq;
    for (uint32_t t = begin; t < end;) {
        const uint32_t tile = t / tile_rows, stop = std::min(end, (tile + 1) * tile_rows);
        blocks.push_back({tile, t - tile * tile_rows, stop - t, t - begin});
        t = stop;
    }
    return blocks;
}

struct Scratch {
    Buffer scores, stats, probs, probs_mm, product, ds_mm, ds_t, dv_sum, dk_sum;
};

Scratch allocate_scratch(CoreBuilder& core, uint32_t seq, uint32_t key_blocks, uint32_t tile_rows, isa::DType mm,
                         bool sums) {
    const uint64_t f32_row = uint64_t(seq) * 4, mm_row = uint64_t(seq) * isa::size_in_bytes(mm);
    Scratch s;
    s.scores = core.sbuf(f32_row, "attention' scores");
    s.stats = core.sbuf(5 * 4, "attention' statistics");  // max, -scale max, sum, 1/sum, rowsum(dP P)
    s.probs = core.sbuf(f32_row, "attention' P");
    s.probs_mm = core.sbuf(mm_row, "attention' P (matmul dtype)");
    s.product = core.sbuf(f32_row, "attention' dP P");
    s.ds_mm = core.sbuf(mm_row, "attention' dS");
    s.ds_t = core.sbuf(uint64_t(key_blocks) * tile_rows * isa::size_in_bytes(mm), "attention' dS^T");
    if (!sums) return s;
    s.dv_sum = core.sbuf(f32_row, "attention' dV^T sum");
    s.dk_sum = core.sbuf(f32_row, "attention' dK^T sum");
    return s;
}

}  // namespace

void attention_backward(KernelContext& ctx, const device::AttentionShape& shape, const AttentionBackwardInputs& in,
                        const AttentionBackwardOutputs& out) {
    CoreBuilder& core = ctx.core;
    const uint32_t seq = shape.seq, hs = shape.head_size, tile_rows = in.q->tile_rows;
    if (seq > device::widest_attention_row(core.spec()))
        throw std::invalid_argument("sequence length " + std::to_string(seq) + " exceeds a moving tile");
    if (tile_rows % hs != 0) throw std::invalid_argument("head size must divide " + std::to_string(tile_rows));
    if (tile_rows > ctx.granule_fp32_elements())
        throw std::invalid_argument("a query block's transposed dS does not fit a PSUM granule");
    const float scale = device::attention_scale(hs);
    const isa::DType mm = ctx.dtypes.matmul, f32 = isa::DType::Fp32;
    const isa::Engine dve = isa::Engine::Dve, side = ctx.side_engine();
    const uint32_t max_blocks = (seq + tile_rows - 1) / tile_rows + 1;
    // A head's dV^T and dK^T add up over its sequence's query blocks in two PSUM banks of their own (the
    // other banks a ring for the rest) when every block has the same rows (a bank's matmuls must have
    // one shape until it is evacuated): sequences of whole tiles, or within one; else in fp32 SBUF.
    const uint32_t banks = core.psum_banks();
    const bool sums_in_psum = (seq % tile_rows == 0 || tile_rows % seq == 0) && banks >= 6;
    device::PsumRing ring(core, 0, sums_in_psum ? banks - 2 : banks);
    device::PsumRing& psum = sums_in_psum ? ring : ctx.psum;
    const Scratch s = allocate_scratch(core, seq, max_blocks, tile_rows, mm, !sums_in_psum);

    for (uint32_t b = 0; b < shape.batch; ++b) {
        const std::vector<Block> blocks = blocks_of(b, seq, tile_rows);
        const uint32_t first_token = b * seq;
        for (uint32_t h = 0; h < shape.heads; ++h) {
            const uint32_t tile = h * hs / tile_rows, p0 = h * hs % tile_rows;
            const View dv_sum = sums_in_psum ? device::psum_tile(core, banks - 2, hs, 0, seq, p0)
                                             : builder::tile(s.dv_sum, f32, p0, hs, 0, seq);
            const View dk_sum = sums_in_psum ? device::psum_tile(core, banks - 1, hs, 0, seq, p0)
                                             : builder::tile(s.dk_sum, f32, p0, hs, 0, seq);
            for (size_t qi = 0; qi < blocks.size(); ++qi) {
                const Block& qb = blocks[qi];
                const uint32_t q = qb.rows, pq = qb.partition, first = first_token + qb.column;
                auto stat = [&](uint32_t i) { return builder::tile(s.stats, f32, pq, q, i, 1); };
                auto row = [&](const Buffer& buffer, isa::DType t) { return builder::tile(buffer, t, pq, q, 0, seq); };
                const View scores = row(s.scores, f32), probs = row(s.probs, f32), probs_mm = row(s.probs_mm, mm);
                const View ds_mm = row(s.ds_mm, mm);

                // P of the block, on the block's own partitions.
                const View scores_psum = device::psum_tile(core, psum.next_bank(), q, 0, seq, pq);
                core.matmul(scores_psum, in.q_t->view(tile, p0, hs, first, q), in.k_t->view(tile, p0, hs, first_token, seq),
                            false);
                core.tensor_tensor(dve, scores, scores_psum, builder::tile(in.mask, f32, pq, q, first_token, seq),
                                   isa::AluOp::Add);
                core.tensor_reduce(dve, stat(0), scores, isa::ReduceOp::Max);
                core.tensor_scalar(dve, stat(1), stat(0), isa::AluOp::Multiply, -scale);
                const View neg_max = stat(1), sum = stat(2);
                core.activation(scores, scores, isa::ActivationFunction::Exp, scale, &neg_max, isa::ReduceOp::Add, &sum);
                core.activation(stat(3), sum, isa::ActivationFunction::Reciprocal);
                core.tensor_partition_scalar(dve, probs, scores, isa::AluOp::Multiply, stat(3));
                const float drop = in.dropout.probability;
                const uint32_t key = in.dropout.first_key + h, first_row = in.dropout.first_row + first;
                if (drop > 0) core.dropout(probs_mm, probs, drop, key, first_row);  // D(P), for dV
                else core.tensor_copy(side, probs_mm, probs);

                // dS = scale P (dP - rowsum(dP P)), dP = D applied to dC V^T (into the scores' buffer).
                const View dp_psum = device::psum_tile(core, psum.next_bank(), q, 0, seq, pq);
                core.matmul(dp_psum, in.dc_t->view(tile, p0, hs, first, q), in.v_t->view(tile, p0, hs, first_token, seq),
                            false);
                const View dp = drop > 0 ? scores : dp_psum;
                if (drop > 0) core.dropout(dp, dp_psum, drop, key, first_row);
                softmax_backward_rows(ctx, probs, dp, ds_mm, row(s.product, f32), stat(4), scale);

                // dV^T and dK^T of the head: this block's queries' share, summed in fp32.
                const View dv_in = in.dc->view(qb.tile, pq, q, h * hs, hs), dk_in = in.q->view(qb.tile, pq, q, h * hs, hs);
                if (sums_in_psum) {
                    core.matmul(dv_sum, dv_in, probs_mm, qi > 0);
                    core.matmul(dk_sum, dk_in, ds_mm, qi > 0);
                } else {
                    const View dv_part = device::psum_tile(core, psum.next_bank(), hs, 0, seq, p0);
                    core.matmul(dv_part, dv_in, probs_mm, false);
                    const View dk_part = device::psum_tile(core, psum.next_bank(), hs, 0, seq, p0);
                    core.matmul(dk_part, dk_in, ds_mm, false);
                    if (qi == 0) {
                        core.activation(dv_sum, dv_part, isa::ActivationFunction::Identity);
                        core.tensor_copy(dve, dk_sum, dk_part);
                    } else {
                        core.tensor_tensor(dve, dv_sum, dv_part, dv_sum, isa::AluOp::Add);
                        core.tensor_tensor(dve, dk_sum, dk_part, dk_sum, isa::AluOp::Add);
                    }
                }

                // dQ^T of the block = K^T dS^T over the key blocks (dS^T by PE transposes, as the forward's P^T).
                uint32_t bank = 0;
                for (size_t k = 0; k < blocks.size(); ++k) {
                    const Block& kb = blocks[k];
                    if (k % CoreBuilder::kPsumGranules == 0) bank = psum.next_bank();
                    const uint32_t element = uint32_t(k % CoreBuilder::kPsumGranules) * ctx.granule_fp32_elements();
                    const View transposed = device::psum_tile(core, bank, kb.rows, element, q, kb.partition);
                    core.pe_transpose(transposed, builder::tile(s.ds_mm, mm, pq, q, kb.column, kb.rows));
                    core.tensor_copy(isa::Engine::Act,
                                     builder::tile(s.ds_t, mm, kb.partition, kb.rows, k * tile_rows, q).part(), transposed);
                }
                const View dq = device::psum_tile(core, psum.next_bank(), hs, 0, q, p0);
                for (size_t k = 0; k < blocks.size(); ++k) {
                    const Block& kb = blocks[k];
                    core.matmul(dq, in.k->view(kb.tile, kb.partition, kb.rows, h * hs, hs),
                                builder::tile(s.ds_t, mm, kb.partition, kb.rows, k * tile_rows, q), k > 0);
                }
                core.activation(out.q_t->view(tile, p0, hs, first, q).part(), dq, isa::ActivationFunction::Identity);
            }
            const View dv = out.v_t->view(tile, p0, hs, first_token, seq).part();
            const View dk = out.k_t->view(tile, p0, hs, first_token, seq).part();
            if (sums_in_psum) {  // evacuated by the engines that read PSUM
                core.activation(dv, dv_sum, isa::ActivationFunction::Identity);
                core.tensor_copy(dve, dk, dk_sum);
            } else {
                core.tensor_copy(side, dv, dv_sum);
                core.tensor_copy(side, dk, dk_sum);
            }
        }
    }
}

}  // namespace nsim::kernels::train
