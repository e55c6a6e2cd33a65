#include "train/activation_backward.h"

#include <algorithm>
#include <stdexcept>

namespace nsim::kernels::train {
namespace {

using builder::View;

void check_shapes(const TileSet& a, const TileSet& b, const TileSet& c, const char* what) {
    if (a.rows != b.rows || a.columns != b.columns || c.rows != a.rows || c.columns != a.columns ||
        a.tile_rows != b.tile_rows || a.tile_rows != c.tile_rows)
        throw std::logic_error(std::string(what) + ": operand shapes differ");
}

// An fp32 [tile rows, columns] scratch tile.
View scratch_view(const builder::Buffer& scratch, uint32_t rows, uint32_t columns) {
    return builder::tile(scratch, isa::DType::Fp32, 0, rows, 0, columns);
}

}  // namespace

void gelu_backward(KernelContext& ctx, const TileSet& x, const TileSet& dy, TileSet& dx) {
    check_shapes(x, dy, dx, "gelu_backward");
    // The derivative a block of columns at a time: 8 KiB per partition of fp32 scratch (BERT-large's
    // FFN backward, in passes of two sequences, has no room for a whole 4096-column row).
    constexpr uint32_t kScratchColumns = 2048;
    const uint32_t width = std::min(x.columns, kScratchColumns);
    const builder::Buffer scratch = ctx.core.sbuf(uint64_t(width) * 4, "gelu' scratch");
    for (uint32_t k = 0; k < x.tiles.size(); ++k)
        for (const device::Range c : device::split(x.columns, width)) {
            const View derivative = scratch_view(scratch, x.rows_of(k), c.size);
            ctx.core.activation(derivative, x.view(k, c.begin, c.size), isa::ActivationFunction::GeluDx);
            ctx.core.tensor_tensor(isa::Engine::Dve, dx.view(k, c.begin, c.size), derivative, dy.view(k, c.begin, c.size),
                                   isa::AluOp::Multiply);
        }
}

void tanh_backward(KernelContext& ctx, const TileSet& y, const TileSet& dy, TileSet& dx) {
    check_shapes(y, dy, dx, "tanh_backward");
    const builder::Buffer scratch = ctx.core.sbuf(uint64_t(y.columns) * 4, "tanh' scratch");
    for (uint32_t k = 0; k < y.tiles.size(); ++k) {
        const View derivative = scratch_view(scratch, y.rows_of(k), y.columns);
        const View yk = y.view(k, 0, y.columns);
        ctx.core.tensor_tensor(isa::Engine::Dve, derivative, yk, yk, isa::AluOp::Multiply);
        ctx.core.tensor_scalar(isa::Engine::Dve, derivative, derivative, isa::AluOp::Multiply, -1.0f, isa::AluOp::Add,
                               1.0f);
        ctx.core.tensor_tensor(isa::Engine::Dve, dx.view(k, 0, y.columns), derivative, dy.view(k, 0, y.columns),
                               isa::AluOp::Multiply);
    }
}

void softmax_backward_rows(KernelContext& ctx, const View& p, const View& dp, const View& ds, const View& product,
                           const View& dot, float scale) {
    ctx.core.tensor_tensor(isa::Engine::Dve, product, dp, p, isa::AluOp::Multiply);
    ctx.core.tensor_reduce(isa::Engine::Dve, dot, product, isa::ReduceOp::Add);
    // (dp - dot) * scale, then times p.
    ctx.core.tensor_partition_scalar(isa::Engine::Dve, product, dp, isa::AluOp::Subtract, dot);
    ctx.core.tensor_scalar(isa::Engine::Dve, product, product, isa::AluOp::Multiply, scale);
    ctx.core.tensor_tensor(isa::Engine::Dve, ds, product, p, isa::AluOp::Multiply);
}

void softmax_backward(KernelContext& ctx, const TileSet& p, const TileSet& dp, TileSet& ds, float scale) {
    check_shapes(p, dp, ds, "softmax_backward");
    const builder::Buffer scratch = ctx.core.sbuf(uint64_t(p.columns + 1) * 4, "softmax' scratch");
    for (uint32_t k = 0; k < p.tiles.size(); ++k) {
        const uint32_t rows = p.rows_of(k);
        softmax_backward_rows(ctx, p.view(k, 0, p.columns), dp.view(k, 0, p.columns), ds.view(k, 0, p.columns),
                              scratch_view(scratch, rows, p.columns),
                              builder::tile(scratch, isa::DType::Fp32, 0, rows, p.columns, 1), scale);
    }
}

}  // namespace nsim::kernels::train
