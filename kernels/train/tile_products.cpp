#include "train/tile_products.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nsim::kernels::train {

using device::Range;
using device::split;
using builder::View;

void contract_tokens(KernelContext& ctx, const TileSet& a, const TileSet& b, TileSet& out) {
    contract_tokens(ctx, a, b, out, Range{0, a.columns}, Range{0, b.columns});
}

void contract_tokens(KernelContext& ctx, const TileSet& a, const TileSet& b, TileSet& out, Range m_block, Range n_block) {
    if (a.rows != b.rows || a.tile_rows != b.tile_rows || a.dtype != b.dtype)
        throw std::logic_error("contract_tokens: operands of different token tilings or dtypes");
    if (m_block.end() > a.columns || n_block.end() > b.columns) throw std::logic_error("contract_tokens: block outside the operands");
    if (out.rows != m_block.size || out.columns != n_block.size) throw std::logic_error("contract_tokens: output shape");
    const uint32_t chunk = std::min(ctx.max_moving(), ctx.bank_fp32_elements());
    const std::vector<Range> out_tiles = split(m_block.size, std::min(out.tile_rows, ctx.max_stationary()));
    const std::vector<Range> chunks = split(n_block.size, chunk);
    uint32_t evacuation = 0;
    for (uint32_t i = 0; i < out_tiles.size(); ++i) {
        const Range m = out_tiles[i];
        for (const Range& n : chunks) {
            const uint32_t bank = ctx.psum.next_bank();
            const View acc = device::psum_tile(ctx.core, bank, m.size, 0, n.size);
            for (uint32_t k = 0; k < a.tiles.size(); ++k)
                ctx.core.matmul(acc, a.view(k, m_block.begin + m.begin, m.size), b.view(k, n_block.begin + n.begin, n.size),
                                k > 0);
            // Evacuations alternate between the scalar and the vector engine, as the forward kernels do.
            const View dst = chunks.size() > 1 ? out.view(i, n.begin, n.size).part() : out.view(i, n.begin, n.size);
            if (evacuation++ % 2 == 0) ctx.core.activation(dst, acc, isa::ActivationFunction::Identity);
            else ctx.core.tensor_copy(isa::Engine::Dve, dst, acc);
        }
    }
}

void transpose_tiles(KernelContext& ctx, const TileSet& in, TileSet& out) {
    if (out.rows != in.columns || out.columns != in.rows) throw std::logic_error("transpose_tiles: output shape");
    if (out.tile_rows != in.tile_rows) throw std::logic_error("transpose_tiles: different tilings");
    // Blocks of one source tile share a PSUM bank (equal shapes, as the bank's semaphore requires).
    const uint32_t per_bank = std::max<uint32_t>(
        1, std::min<uint32_t>(builder::CoreBuilder::kPsumGranules,
                              builder::CoreBuilder::kPsumGranules * ctx.granule_fp32_elements() / in.tile_rows));
    const std::vector<Range> blocks = split(in.columns, out.tile_rows);
    for (uint32_t j = 0; j < in.tiles.size(); ++j) {
        const uint32_t rows = in.rows_of(j);
        uint32_t bank = 0;
        for (uint32_t i = 0; i < blocks.size(); ++i) {
            if (i % per_bank == 0) bank = ctx.psum.next_bank();
            const View block = device::psum_tile(ctx.core, bank, blocks[i].size, (i % per_bank) * in.tile_rows, rows);
            ctx.core.pe_transpose(block, in.view(j, blocks[i].begin, blocks[i].size));
            ctx.core.tensor_copy(isa::Engine::Dve, out.view(i, j * in.tile_rows, rows).part(), block);
        }
    }
}

uint32_t add_index_row(builder::ProgramBuilder& program, const std::string& name, uint32_t count) {
    std::vector<float> row(count);
    for (uint32_t i = 0; i < count; ++i) row[i] = float(i);
    return program.add_tensor(name, isa::TensorRole::Weight, isa::DType::Fp32, {1, count},
                              builder::encode_values(row, isa::DType::Fp32));
}

builder::Buffer load_broadcast_row(KernelContext& ctx, builder::DmaChannel& channel, uint32_t tensor, uint32_t columns,
                                   const std::string& what) {
    const uint32_t partitions = ctx.partitions();
    const builder::Buffer b = ctx.core.sbuf(uint64_t(columns) * 4, what);
    broadcast_elements(ctx, channel, tensor, isa::DType::Fp32, 0, columns, b, isa::DType::Fp32, partitions);
    return b;
}

void broadcast_elements(KernelContext& ctx, builder::DmaChannel& channel, uint32_t tensor, isa::DType dtype,
                        uint64_t first, uint32_t columns, const builder::Buffer& dst, isa::DType dst_dtype,
                        uint32_t partitions) {
    const View to = builder::tile(dst, dst_dtype, 0, partitions, 0, columns);
    const View src = builder::dram(builder::dram_rows(tensor, dtype, first + columns, 0, partitions, first, columns, 0));
    ctx.core.dma(channel, builder::CoreBuilder::split_rows(to, src, uint32_t(channel.queues().size())));
}

TileSet ones_column(KernelContext& ctx, uint32_t rows, isa::DType dtype) {
    TileSet ones = device::allocate_tiles(ctx.core, rows, 1, dtype, "ones");
    for (uint32_t k = 0; k < ones.tiles.size(); ++k) ctx.core.memset(ctx.side_engine(), ones.view(k, 0, 1), 1.0f);
    return ones;
}

uint32_t ffn_chunk_tokens(uint32_t chunk, uint32_t tokens, uint32_t tile_rows, const std::string& who) {
    if (chunk == 0 || chunk >= tokens) return tokens;
    if (chunk % tile_rows != 0 || tokens % chunk != 0)
        throw std::invalid_argument(who + ": FFN chunks must be whole partition tiles that divide the pass");
    return chunk;
}

TileSet row_tiles(const TileSet& set, uint32_t first, uint32_t count) {
    if (first % set.tile_rows != 0 || first + count > set.rows)
        throw std::logic_error("row_tiles: rows that are not whole tiles of the set");
    TileSet rows = set;
    rows.rows = count;
    if (!set.tiles.empty())
        rows.tiles.assign(set.tiles.begin() + first / set.tile_rows,
                          set.tiles.begin() + (first + count + set.tile_rows - 1) / set.tile_rows);
    return rows;
}

}  // namespace nsim::kernels::train
