#include "train/optimizer_step.h"

#include <algorithm>
#include <stdexcept>

#include "train/dram_tiles.h"

namespace nsim::kernels::train {
namespace {

using builder::View;
using device::kFp32;
constexpr float kClipEps = 1e-6f;  // torch.nn.utils.clip_grad_norm_'s
constexpr uint64_t kSbufAlignmentSlack = 64;  // what the SBUF allocator may pad a buffer with
// AdamW is element-wise: a vector wider than every matrix row (a vocabulary's decoder bias: 30522
// elements, 119 KiB of fp32 per row) is updated as the [n / c, c] matrix of the same bytes, c the
// largest divisor of n no wider than `widest`, so that its rows spread over partitions.
ParameterTensors as_rows(ParameterTensors p, uint32_t widest) {
    if (p.rows != 1 || p.transposed != isa::kNoTensor || p.columns <= widest) return p;
    uint32_t c = widest;
    while (p.columns % c != 0) --c;
    p.rows = p.columns / c;
    p.columns = c;
    return p;
}

OptimizerStep with_vectors_as_rows(OptimizerStep step) {
    uint32_t widest = 1;
    for (const ParameterTensors& p : step.parameters)
        if (p.rows > 1) widest = std::max(widest, p.columns);
    for (ParameterTensors& p : step.parameters) p = as_rows(p, widest);
    return step;
}

struct Chunking {
    uint32_t rows_per_chunk = 0;
    uint64_t bytes = 0;  // of the largest chunk
};

class Optimizer {
public:
    Optimizer(KernelContext& ctx, builder::DmaChannel& channel, const OptimizerStep& step)
        : ctx_(ctx), core_(ctx.core), channel_(channel), step_(with_vectors_as_rows(step)), act_(ctx.dtypes.activation),
          tile_rows_(device::partition_tile_rows(ctx.core.spec())) {}

    void run() {
        uint64_t room_bytes = 0;
        uint32_t widest = 0;
        for (const ParameterTensors& p : step_.parameters) {
            room_bytes = std::max(room_bytes, chunking(p).bytes);
            widest = std::max(widest, p.columns);
        }
        scratch_ = core_.sbuf(uint64_t(widest) * 2 * 4, "adamw scratch");
        // Two rooms when SBUF has them (a chunk's loads overlap the update of the one before), else one
        // used by every chunk (BERT-large: 4096-wide rows make the scratch 32 KiB).
        const uint64_t free = core_.spec().sbuf.bytes_per_partition - std::min(core_.sbuf_used(), core_.spec().sbuf.bytes_per_partition);
        rooms_[0] = core_.sbuf_region(room_bytes, "optimizer parameter room");
        rooms_[1] = free >= 2 * room_bytes + 2 * kSbufAlignmentSlack ? core_.sbuf_region(room_bytes, "optimizer parameter room")
                                                                      : rooms_[0];
        factor_ = gradient_factor();
        for (size_t i = 0; i < step_.parameters.size(); ++i) {
            const ParameterTensors& p = step_.parameters[i];
            const uint32_t chunk = chunking(p).rows_per_chunk;
            for (uint32_t r = 0; r < p.rows; r += chunk) update(p, step_.gradients[i], r, std::min(chunk, p.rows - r));
        }
    }

private:
    uint64_t bytes(uint32_t rows, uint32_t columns, isa::DType dtype) const {
        return device::tile_set_bytes(core_, rows, columns, dtype);
    }
    // The parameter's rows in chunks of whole row tiles within the step's chunk bytes (at least one
    // tile): a large parameter (a vocabulary's table) goes through in parts.
    Chunking chunking(const ParameterTensors& p) const {
        auto chunk_bytes = [&](uint32_t rows) {
            return bytes(rows, p.columns, act_) + 2 * bytes(rows, p.columns, step_.states) + bytes(rows, p.columns, kFp32) +
                   (p.transposed == isa::kNoTensor ? 0 : bytes(p.columns, rows, act_));
        };
        const uint32_t tiles = (p.rows + tile_rows_ - 1) / tile_rows_;
        uint32_t per_chunk = 1;
        while (per_chunk < tiles && chunk_bytes((per_chunk + 1) * tile_rows_) <= step_.chunk_bytes) ++per_chunk;
        const uint32_t rows = std::min(p.rows, per_chunk * tile_rows_);
        return {rows, chunk_bytes(rows)};
    }

    // The factor every summed gradient is multiplied by, per partition ([partitions, 1] fp32): 1 /
    // micro steps, times the clipping coefficient of the averaged gradient's norm when clipping.
    builder::Buffer gradient_factor() {
        const isa::Engine dve = isa::Engine::Dve;
        const uint32_t partitions = ctx_.partitions();
        const float average = 1.0f / float(step_.micro_steps);
        const builder::Buffer factor = core_.sbuf(4, "gradient factor");
        const View factor_all = builder::tile(factor, kFp32, 0, partitions, 0, 1);
        if (step_.max_grad_norm <= 0) {
            core_.memset(dve, factor_all, average);
            return factor;
        }
        // Per-partition sums of squares over every gradient, then the total on every partition (a
        // matmul with a matrix of ones).
        TileSet squares = device::allocate_tiles(core_, partitions, 1, kFp32, "gradient squares");
        core_.memset(dve, squares.view(0, 0, 1), 0.0f);
        const builder::Buffer row_sums = core_.sbuf(4, "gradient square row sums");
        for (size_t i = 0; i < step_.parameters.size(); ++i) {
            const ParameterTensors& p = step_.parameters[i];
            const uint32_t chunk = chunking(p).rows_per_chunk;
            for (uint32_t r = 0; r < p.rows; r += chunk) {
                TileSet g = device::alias_tiles(core_, next_room(), 0, std::min(chunk, p.rows - r), p.columns, kFp32);
                load_tiles(ctx_, channel_of(step_.gradients[i]), {step_.gradients[i], kFp32, p.columns, r, 0}, g);
                for (uint32_t k = 0; k < g.tiles.size(); ++k) {
                    const uint32_t rows = g.rows_of(k);
                    const View a = builder::tile(scratch_, kFp32, 0, rows, 0, p.columns);
                    const View sums = builder::tile(row_sums, kFp32, 0, rows, 0, 1);
                    core_.tensor_tensor(dve, a, g.view(k, 0, p.columns), g.view(k, 0, p.columns), isa::AluOp::Multiply);
                    core_.tensor_reduce(dve, sums, a, isa::ReduceOp::Add);
                    const View acc = squares.view(0, 0, rows, 0, 1);
                    core_.tensor_tensor(dve, acc, acc, sums, isa::AluOp::Add);
                }
            }
        }
        TileSet ones = device::allocate_tiles(core_, partitions, partitions, kFp32, "ones");
        core_.memset(ctx_.side_engine(), ones.view(0, 0, partitions), 1.0f);
        TileSet total = device::allocate_tiles(core_, partitions, 1, kFp32, "gradient square total");
        contract_tokens(ctx_, ones, squares, total);
        // norm = sqrt(total) / micro steps; factor = min(max_norm / (norm + eps), 1) / micro steps.
        const builder::Buffer norm = core_.sbuf(4, "gradient norm");
        const View norm_all = builder::tile(norm, kFp32, 0, partitions, 0, 1);
        core_.activation(norm_all, total.view(0, 0, 1), isa::ActivationFunction::Sqrt, average * average);
        core_.dma(channel_, {builder::DmaPiece{builder::dram(builder::dram_rows(step_.grad_norm_output, kFp32, 1, 0, 1, 0, 1)),
                                               builder::tile(norm, kFp32, 0, 1, 0, 1)}});
        core_.tensor_scalar(dve, factor_all, norm_all, isa::AluOp::Add, kClipEps);
        core_.activation(factor_all, factor_all, isa::ActivationFunction::Reciprocal);
        core_.tensor_scalar(dve, factor_all, factor_all, isa::AluOp::Multiply, step_.max_grad_norm, isa::AluOp::Min, 1.0f);
        core_.tensor_scalar(dve, factor_all, factor_all, isa::AluOp::Multiply, average);
        return factor;
    }

    // AdamW on rows [first, first + rows) of `p`, and what it writes back.
    void update(const ParameterTensors& p, uint32_t gradient, uint32_t first, uint32_t rows) {
        uint64_t at = 0;
        const builder::Buffer& room = next_room();
        auto next = [&](uint32_t r, uint32_t c, isa::DType dtype) {
            TileSet t = device::alias_tiles(core_, room, at, r, c, dtype);
            at += bytes(r, c, dtype);
            return t;
        };
        TileSet param = next(rows, p.columns, act_), m = next(rows, p.columns, step_.states);
        TileSet v = next(rows, p.columns, step_.states), g = next(rows, p.columns, kFp32);
        const DramBlock param_block{p.parameter, act_, p.columns, first, 0}, m_block{p.m, step_.states, p.columns, first, 0};
        const DramBlock v_block{p.v, step_.states, p.columns, first, 0};
        load_tiles(ctx_, channel_of(p.parameter), param_block, param);
        load_tiles(ctx_, channel_of(p.m), m_block, m);
        load_tiles(ctx_, channel_of(p.v), v_block, v);
        load_tiles(ctx_, channel_of(gradient), {gradient, kFp32, p.columns, first, 0}, g);
        for (uint32_t k = 0; k < g.tiles.size(); ++k) {
            const View gk = g.view(k, 0, p.columns);
            core_.tensor_partition_scalar(isa::Engine::Dve, gk, gk, isa::AluOp::Multiply,
                                          builder::tile(factor_, kFp32, 0, g.rows_of(k), 0, 1));
        }
        adamw(ctx_, param, g, m, v, step_.scalars, step_.constants, scratch_);
        store_tiles(ctx_, channel_of(p.parameter), param, param_block);
        store_tiles(ctx_, channel_of(p.m), m, m_block);
        store_tiles(ctx_, channel_of(p.v), v, v_block);
        if (p.transposed != isa::kNoTensor) {
            TileSet transposed = next(p.columns, rows, act_);
            transpose_tiles(ctx_, param, transposed);
            store_tiles(ctx_, channel_of(p.transposed), transposed, {p.transposed, act_, p.rows, 0, first});
        }
    }

    KernelContext& ctx_;
    CoreBuilder& core_;
    builder::DmaChannel& channel_;
    const OptimizerStep step_;
    isa::DType act_;
    uint32_t tile_rows_;
    builder::DmaChannel& channel_of(uint32_t tensor) const { return step_.channels ? step_.channels->of(tensor) : channel_; }
    const builder::Buffer& next_room() { return rooms_[next_room_++ % 2]; }

    builder::Buffer rooms_[2], scratch_, factor_;
    uint32_t next_room_ = 0;
};

}  // namespace

void optimizer_step(KernelContext& ctx, builder::DmaChannel& channel, const OptimizerStep& step) {
    if (step.gradients.size() != step.parameters.size())
        throw std::logic_error("optimizer step: one gradient per parameter");
    if (step.max_grad_norm > 0 && step.grad_norm_output == isa::kNoTensor)
        throw std::logic_error("optimizer step: clipping needs the norm's output tensor");
    Optimizer(ctx, channel, step).run();
}

}  // namespace nsim::kernels::train
