#include "train/embedding_backward.h"

#include <stdexcept>

namespace nsim::kernels::train {

using builder::View;

void embedding_backward(KernelContext& ctx, const TileSet& ids, const TileSet& dy, const builder::Buffer& index_row,
                        TileSet& table_grad, uint32_t first_row) {
    if (ids.rows != dy.rows || ids.columns != 1 || ids.dtype != isa::DType::Fp32)
        throw std::logic_error("embedding_backward: ids are one fp32 per token");
    if (table_grad.columns != dy.columns) throw std::logic_error("embedding_backward: table width");
    CoreBuilder& core = ctx.core;
    const uint32_t block = table_grad.tile_rows;
    const builder::Buffer shifted_ids = core.sbuf(4, "embedding' shifted ids");
    TileSet onehot = device::allocate_tiles(core, dy.rows, block, dy.dtype, "embedding' one-hot");
    for (uint32_t b = 0; b < table_grad.tiles.size(); ++b) {
        const uint32_t rows = table_grad.rows_of(b);
        TileSet block_onehot = onehot;
        block_onehot.columns = rows;
        for (uint32_t k = 0; k < dy.tiles.size(); ++k) {
            const uint32_t n = dy.rows_of(k);
            const View shifted = builder::tile(shifted_ids, isa::DType::Fp32, 0, n, 0, 1);
            core.tensor_scalar(isa::Engine::Dve, shifted, ids.view(k, 0, 1), isa::AluOp::Subtract,
                               float(first_row + b * block));
            core.tensor_partition_scalar(isa::Engine::Dve, block_onehot.view(k, 0, rows),
                                         builder::tile(index_row, isa::DType::Fp32, 0, n, 0, rows), isa::AluOp::IsEqual,
                                         shifted);
        }
        TileSet out = table_grad;
        out.tiles = {table_grad.tiles[b]};
        out.rows = rows;
        contract_tokens(ctx, block_onehot, dy, out);
    }
}

}  // namespace nsim::kernels::train
