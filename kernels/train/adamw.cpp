#include "train/adamw.h"

#include <cmath>
#include <stdexcept>

namespace nsim::kernels::train {

using builder::View;

std::vector<float> adamw_step_scalars(double lr, double weight_decay, double beta1, double beta2, uint32_t t) {
    if (t == 0) throw std::invalid_argument("AdamW steps count from 1");
    std::vector<float> s(kAdamWScalars);
    s[kDecay] = float(1.0 - lr * weight_decay);
    s[kStepSize] = float(lr / (1.0 - std::pow(beta1, t)));
    s[kBias2] = float(1.0 / (1.0 - std::pow(beta2, t)));
    return s;
}

void adamw(KernelContext& ctx, TileSet& p, const TileSet& g, TileSet& m, TileSet& v, const builder::Buffer& scalars,
           const AdamWConstants& c) {
    adamw(ctx, p, g, m, v, scalars, c, ctx.core.sbuf(uint64_t(p.columns) * 2 * 4, "adamw scratch"));
}

void adamw(KernelContext& ctx, TileSet& p, const TileSet& g, TileSet& m, TileSet& v, const builder::Buffer& scalars,
           const AdamWConstants& c, const builder::Buffer& scratch) {
    for (const TileSet* t : {&g, static_cast<const TileSet*>(&m), static_cast<const TileSet*>(&v)})
        if (t->rows != p.rows || t->columns != p.columns || t->tile_rows != p.tile_rows)
            throw std::logic_error("adamw: p, g, m, v differ in shape");
    CoreBuilder& core = ctx.core;
    const isa::Engine dve = isa::Engine::Dve;
    const uint32_t columns = p.columns;
    for (uint32_t k = 0; k < p.tiles.size(); ++k) {
        const uint32_t rows = p.rows_of(k);
        const View a = builder::tile(scratch, isa::DType::Fp32, 0, rows, 0, columns);
        const View b = builder::tile(scratch, isa::DType::Fp32, 0, rows, columns, columns);
        auto scalar = [&](AdamWScalar s) { return builder::tile(scalars, isa::DType::Fp32, 0, rows, s, 1); };
        const View pk = p.view(k, 0, columns), gk = g.view(k, 0, columns);
        const View mk = m.view(k, 0, columns), vk = v.view(k, 0, columns);
        // m = b1 m + (1 - b1) g
        core.tensor_scalar(dve, a, gk, isa::AluOp::Multiply, 1.0f - c.beta1);
        core.tensor_scalar(dve, mk, mk, isa::AluOp::Multiply, c.beta1);
        core.tensor_tensor(dve, mk, mk, a, isa::AluOp::Add);
        // v = b2 v + (1 - b2) g^2
        core.tensor_tensor(dve, a, gk, gk, isa::AluOp::Multiply);
        core.tensor_scalar(dve, a, a, isa::AluOp::Multiply, 1.0f - c.beta2);
        core.tensor_scalar(dve, vk, vk, isa::AluOp::Multiply, c.beta2);
        core.tensor_tensor(dve, vk, vk, a, isa::AluOp::Add);
        // update = step_size m / (sqrt(v bias2) + eps)
        core.tensor_partition_scalar(dve, a, vk, isa::AluOp::Multiply, scalar(kBias2));
        core.activation(a, a, isa::ActivationFunction::Sqrt);
        core.tensor_scalar(dve, a, a, isa::AluOp::Add, c.eps);
        core.tensor_tensor(dve, a, mk, a, isa::AluOp::Divide);
        core.tensor_partition_scalar(dve, a, a, isa::AluOp::Multiply, scalar(kStepSize));
        // p = p decay - update, rounded once into p's dtype
        core.tensor_partition_scalar(dve, b, pk, isa::AluOp::Multiply, scalar(kDecay));
        core.tensor_tensor(dve, pk, b, a, isa::AluOp::Subtract);
    }
}

}  // namespace nsim::kernels::train
