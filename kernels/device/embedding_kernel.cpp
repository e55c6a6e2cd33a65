#include "device/embedding_kernel.h"

#include "device/linear_kernels.h"

namespace nsim::kernels::device {
namespace {

constexpr uint32_t kOneHotRing = 3;

// fp32 copies of an int32 [rows, seq] tensor's rows, the same on every partition.
void broadcast_ids(KernelContext& ctx, uint32_t tensor, uint32_t first_row, uint32_t tokens, uint32_t seq,
                   builder::DmaChannel& channel, const Buffer& staging, const Buffer& dst) {
    const uint32_t partitions = ctx.partitions();
    const View staged = builder::tile(staging, isa::DType::Int32, 0, partitions, 0, tokens);
    const View src = builder::dram(
        builder::dram_rows(tensor, isa::DType::Int32, tokens, 0, partitions, uint64_t(first_row) * seq, tokens, 0));
    ctx.core.dma(channel, CoreBuilder::split_rows(staged, src, uint32_t(channel.queues().size())));
    ctx.core.tensor_copy(isa::Engine::Dve, builder::tile(dst, isa::DType::Fp32, 0, partitions, 0, tokens), staged);
}

}  // namespace

EmbeddingScratch allocate_embedding_scratch(CoreBuilder& core, uint32_t tokens, uint32_t vocabulary_blocks,
                                            const DtypePlan& dtypes) {
    EmbeddingScratch s;
    s.ids = core.sbuf(uint64_t(tokens) * 4, "token ids");
    s.types = core.sbuf(uint64_t(tokens) * 4, "token types");
    s.staging = core.sbuf(uint64_t(tokens) * 4, "int32 staging");
    s.vocabulary_index = core.sbuf(uint64_t(vocabulary_blocks) * 4, "vocabulary index");
    for (uint32_t i = 0; i < kOneHotRing; ++i)
        s.one_hot.push_back(core.sbuf(uint64_t(tokens) * isa::size_in_bytes(dtypes.matmul), "one-hot rows"));
    return s;
}

void device_embedding(KernelContext& ctx, const EmbeddingTensors& tables, uint32_t input_ids, uint32_t token_types,
                      uint32_t first_row, uint32_t batch, uint32_t seq, builder::DmaChannel& inputs,
                      EmbeddingScratch& scratch, TileSet& resid) {
    CoreBuilder& core = ctx.core;
    const uint32_t tokens = batch * seq, partitions = ctx.partitions(), hidden = resid.columns;
    broadcast_ids(ctx, input_ids, first_row, tokens, seq, inputs, scratch.staging, scratch.ids);
    broadcast_ids(ctx, token_types, first_row, tokens, seq, inputs, scratch.staging, scratch.types);
    const View index = builder::tile(scratch.vocabulary_index, isa::DType::Fp32, 0, partitions, 0, tables.vocabulary_blocks);
    core.dma(inputs, CoreBuilder::split_rows(index,
                                             builder::dram(builder::dram_rows(tables.vocabulary_index, isa::DType::Fp32,
                                                                              tables.vocabulary_blocks, 0, partitions, 0,
                                                                              tables.vocabulary_blocks)),
                                             uint32_t(inputs.queues().size())));
    // Position rows straight into the residual tiles (the epilogue adds the lookups to them).
    std::vector<builder::DmaPiece> positions;
    for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t t = b * seq; t < (b + 1) * seq;) {
            const uint32_t tile = t / resid.tile_rows, stop = std::min((b + 1) * seq, (tile + 1) * resid.tile_rows);
            const View dst = resid.view(tile, t - tile * resid.tile_rows, stop - t, 0, hidden);
            const View src = builder::dram(builder::dram_rows(tables.position.tensor, tables.position.dtype, hidden,
                                                              t - b * seq, stop - t, 0, hidden));
            for (const auto& piece : CoreBuilder::split_rows(dst, src, uint32_t(inputs.queues().size())))
                positions.push_back(piece);
            t = stop;
        }
    core.dma(inputs, positions);

    std::vector<ContractionStep> steps;
    for (const Range& v : split(tables.word.rows, partitions)) steps.push_back({tables.word, v});
    steps.push_back({tables.token_type, {0, tables.token_type.rows}});
    const uint32_t type_step = uint32_t(steps.size() - 1);
    uint32_t built = 0;
    std::vector<uint32_t> slot_of(steps.size());
    token_major_matmul(
        ctx, steps,
        [&](uint32_t k, uint32_t tile) {
            return builder::tile(scratch.one_hot[slot_of[k]], ctx.dtypes.matmul, 0, steps[k].rows.size,
                                 tile * resid.tile_rows, resid.rows_of(tile));
        },
        [&](uint32_t k) {
            slot_of[k] = built++ % kOneHotRing;
            const uint32_t rows = steps[k].rows.size;
            const Buffer& ids = k == type_step ? scratch.types : scratch.ids;
            const uint32_t block = k == type_step ? 0 : k;
            core.tensor_partition_scalar(ctx.side_engine(),
                                         builder::tile(scratch.one_hot[slot_of[k]], ctx.dtypes.matmul, 0, rows, 0, tokens),
                                         builder::tile(ids, isa::DType::Fp32, 0, rows, 0, tokens), isa::AluOp::IsEqual,
                                         builder::tile(scratch.vocabulary_index, isa::DType::Fp32, 0, rows, block, 1));
        },
        resid, TokenEpilogue::AddInto);
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
