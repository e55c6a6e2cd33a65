#include "device/embedding_kernel.h"

#include <algorithm>

namespace nsim::kernels::device {
namespace {

// Two tiles' token-type and position rows in flight.
constexpr uint32_t kRowRing = 4;

// Rows [first, first + rows) of a table gathered by the int32 indices at element `first_index` on of
// `indices` into dst (`rows` partitions), split over the channel's queues.
std::vector<builder::GatherPiece> gather_rows(const DramMatrix& table, uint32_t indices, uint64_t first_index,
                                              const View& dst, uint32_t rows, uint32_t pieces) {
    std::vector<builder::GatherPiece> out;
    const View all_rows = builder::dram(builder::dram_rows(table.tensor, table.dtype, table.columns, 0, table.rows, 0,
                                                           table.columns));
    const uint32_t per_piece = (rows + pieces - 1) / pieces;
    for (uint32_t r = 0; r < rows; r += per_piece) {
        const uint32_t n = std::min(per_piece, rows - r);
        View part = dst;
        part.ap.partition_start += r;
        part.ap.partition_count = n;
        part.partial = true;
        const View index = builder::dram(builder::dram_rows(indices, isa::DType::Int32, 1, first_index + r, n, 0, 1));
        out.push_back({part, all_rows, index});
    }
    return out;
}

}  // namespace

uint64_t embedding_scratch_bytes(uint32_t hidden, const DtypePlan& dtypes) {
    return uint64_t(kRowRing) * hidden * isa::size_in_bytes(dtypes.activation);
}

EmbeddingScratch alias_embedding_scratch(CoreBuilder& core, const Buffer& region, uint64_t offset, uint32_t hidden,
                                         const DtypePlan& dtypes) {
    EmbeddingScratch s;
    const uint64_t row_bytes = uint64_t(hidden) * isa::size_in_bytes(dtypes.activation);
    for (uint32_t i = 0; i < kRowRing; ++i) s.rows.push_back(core.sbuf_alias(region, offset + i * row_bytes, row_bytes));
    return s;
}

void device_embedding(KernelContext& ctx, const EmbeddingTensors& tables, uint32_t input_ids, uint32_t token_types,
                      uint32_t first_row, uint32_t batch, uint32_t seq, builder::DmaChannel& inputs,
                      EmbeddingScratch& scratch, TileSet& resid) {
    CoreBuilder& core = ctx.core;
    const uint32_t hidden = resid.columns;
    const uint32_t queues = uint32_t(inputs.queues().size());
    const isa::DType dtype = ctx.dtypes.activation;
    uint32_t ring = 0;
    for (uint32_t j = 0; j < resid.tiles.size(); ++j) {
        const uint32_t t0 = j * resid.tile_rows, rows = resid.rows_of(j);
        const uint64_t first_index = uint64_t(first_row) * seq + t0;
        const View word = resid.view(j, 0, hidden);
        const Buffer& type_rows = scratch.rows[ring++ % kRowRing];
        const Buffer& position_rows = scratch.rows[ring++ % kRowRing];
        const View type = builder::tile(type_rows, dtype, 0, rows, 0, hidden);
        const View position = builder::tile(position_rows, dtype, 0, rows, 0, hidden);
        std::vector<builder::GatherPiece> gathers = gather_rows(tables.word, input_ids, first_index, word, rows, queues);
        for (const auto& piece : gather_rows(tables.token_type, token_types, first_index, type, rows, queues))
            gathers.push_back(piece);
        core.dma_gather(inputs, gathers);
        // Position of token t is t mod seq: the tile's rows are runs of consecutive positions.
        std::vector<builder::DmaPiece> positions;
        for (uint32_t t = t0; t < t0 + rows;) {
            const uint32_t in_sequence = t % seq, n = std::min(seq - in_sequence, t0 + rows - t);
            const View dst = builder::tile(position_rows, dtype, t - t0, n, 0, hidden).part();
            const View src = builder::dram(builder::dram_rows(tables.position.tensor, tables.position.dtype, hidden,
                                                              in_sequence, n, 0, hidden));
            for (const auto& piece : CoreBuilder::split_rows(dst, src, queues))
                positions.push_back(piece);
            t += n;
        }
        core.dma(inputs, positions);
        core.tensor_tensor(isa::Engine::Dve, word, word, type, isa::AluOp::Add);
        core.tensor_tensor(ctx.side_engine(), word, word, position, isa::AluOp::Add);
    }
}

void load_host_embeddings(KernelContext& ctx, uint32_t embeddings, uint32_t first_token, builder::DmaChannel& inputs,
                          TileSet& resid) {
    std::vector<builder::DmaPiece> pieces;
    for (uint32_t j = 0; j < resid.tiles.size(); ++j) {
        const uint32_t rows = resid.rows_of(j);
        const View src = builder::dram(builder::dram_rows(embeddings, isa::DType::Fp32, resid.columns,
                                                          first_token + j * resid.tile_rows, rows, 0, resid.columns));
        for (const auto& piece :
             CoreBuilder::split_rows(resid.view(j, 0, resid.columns), src, uint32_t(inputs.queues().size())))
            pieces.push_back(piece);
    }
    ctx.core.dma(inputs, pieces);
}

}  // namespace nsim::kernels::device
