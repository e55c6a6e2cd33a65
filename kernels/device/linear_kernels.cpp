#include "device/linear_kernels.h"

#include <algorithm>
#include <stdexcept>

namespace nsim::kernels::device {
namespace {


// Where an accumulator lives: bank and first fp32 column.
struct Accumulator {
    uint32_t bank = 0, element = 0;
};

// Packs accumulators of the given widths (fp32 columns) into whole granules of as few banks as
// possible, in order, none straddling a bank. Returns the number of banks (bank indices 0..n-1).
uint32_t pack(const KernelContext& ctx, const std::vector<uint32_t>& widths, std::vector<Accumulator>* placed) {
    const uint32_t granule = ctx.granule_fp32_elements();
    uint32_t bank = 0, used = 0;
    for (uint32_t w : widths) {
        const uint32_t g = ceil_div(w, granule);
        if (used + g > CoreBuilder::kPsumGranules) ++bank, used = 0;
        if (placed) placed->push_back({bank, used * granule});
        used += g;
    }
    return widths.empty() ? 0 : bank + 1;
}

// How many steps from `first` on load as one weight block `columns` wide: the following k-tiles of
// the same interleaved matrix, as many as a slot holds.
uint32_t adjacent_tiles(const KernelContext& ctx, const std::vector<ContractionStep>& steps, uint32_t first,
                        uint32_t columns) {
    const DramMatrix& m = steps[first].matrix;
    const uint32_t most = ctx.weights.tiles_per_slot(m, columns);
    uint32_t n = 1;
    while (n < most && first + n < steps.size() && steps[first + n].matrix.tensor == m.tensor &&
           steps[first + n].rows.begin == steps[first].rows.begin + n * m.interleave && steps[first + n].rows.size == m.interleave)
        ++n;
    return n;
}

uint32_t half_ring(const KernelContext& ctx) { return std::max<uint32_t>(1, ctx.psum.banks() / 2); }

std::vector<uint32_t> ring_banks(KernelContext& ctx, uint32_t count) {
    std::vector<uint32_t> banks;
    for (uint32_t i = 0; i < count; ++i) banks.push_back(ctx.psum.next_bank());
    return banks;
}

// Token chunks of a feature-major linear (one PSUM bank of fp32 or a moving tile each), and how many
// of them go in one pass: all when one output tile's accumulators fit the PSUM ring, else as many as
// do, and each further pass streams the weights again. More would take the ring round onto banks of
// the same accumulation, which no semaphore can order.
std::vector<Range> feature_major_chunks(const KernelContext& ctx, uint32_t tokens) {
    return split(tokens, std::min(ctx.max_moving(), ctx.bank_fp32_elements()));
}

size_t feature_major_chunks_per_pass(const KernelContext& ctx, const std::vector<Range>& all_chunks) {
    size_t per_pass = all_chunks.size();
    auto widths_of_first = [&](size_t count) {
        std::vector<uint32_t> w;
        for (size_t c = 0; c < count; ++c) w.push_back(all_chunks[c].size);
        return w;
    };
    while (per_pass > 1 && pack(ctx, widths_of_first(per_pass), nullptr) > ctx.psum.banks()) --per_pass;
    return per_pass;
}

// Accumulator widths of `group` output tiles over a pass's token chunks.
std::vector<uint32_t> feature_major_widths(const std::vector<Range>& chunks, uint32_t group) {
    std::vector<uint32_t> w;
    for (uint32_t i = 0; i < group; ++i)
        for (const Range& c : chunks) w.push_back(c.size);
    return w;
}

// Output tiles per weight block: as many as a weight slot holds and half the PSUM ring takes.
uint32_t feature_major_group(const KernelContext& ctx, const std::vector<Range>& chunks) {
    uint32_t group = std::max<uint32_t>(1, ctx.weights.slot_columns() / partition_tile_rows(ctx.core.spec()));
    while (group > 1 && pack(ctx, feature_major_widths(chunks, group), nullptr) > half_ring(ctx)) --group;
    return group;
}

// A token-major linear's column chunk (PSUM accumulator width), token tiles per group and chunks per
// weight block.
struct TokenMajorShape {
    uint32_t width = 0, tiles_per_group = 0, chunks_per_block = 0;
};

uint32_t token_major_banks(const KernelContext& ctx, uint32_t width, uint32_t tiles) {
    return pack(ctx, std::vector<uint32_t>(tiles, width), nullptr);
}

// The widest column chunk whose accumulators for every token tile fit half the PSUM ring; when even
// one granule per tile does not, the token tiles go in groups (each streaming the weights again).
// Column chunks per weight block: as many as a weight slot holds and half the PSUM ring takes for
// every token tile of a group (wide blocks make long DMA rows, see WeightRing).
TokenMajorShape token_major_shape(const KernelContext& ctx, uint32_t token_tiles) {
    TokenMajorShape s;
    s.width = std::min({ctx.max_moving(), ctx.bank_fp32_elements(), ctx.weights.slot_columns()});
    while (s.width > ctx.granule_fp32_elements() && token_major_banks(ctx, s.width, token_tiles) > half_ring(ctx)) s.width /= 2;
    s.tiles_per_group = token_tiles;
    while (s.tiles_per_group > 1 && token_major_banks(ctx, s.width, s.tiles_per_group) > half_ring(ctx)) --s.tiles_per_group;
    s.chunks_per_block = std::max<uint32_t>(1, ctx.weights.slot_columns() / s.width);
    while (s.chunks_per_block > 1 &&
           token_major_banks(ctx, s.width, s.tiles_per_group * s.chunks_per_block) > half_ring(ctx))
        --s.chunks_per_block;
    return s;
}

void check_contraction(const TileSet& in, const DramMatrix& weights) {
    if (in.rows != weights.rows)
        throw std::logic_error("linear: " + std::to_string(in.rows) + " input features, weights have " +
                               std::to_string(weights.rows) + " rows");
}

}  // namespace

void feature_major_linear(KernelContext& ctx, const TileSet& in, const DramMatrix& weights,
                          const std::optional<ColumnParams>& bias, isa::ActivationFunction func, TileSet& out,
                          std::optional<Range> token_columns, uint32_t token_stride) {
    check_contraction(in, weights);
    const uint32_t tokens = token_columns ? token_columns->size : in.columns;
    const uint32_t first_token = token_columns ? token_columns->begin : 0;
    if (out.rows != weights.columns || out.columns != tokens) throw std::logic_error("feature_major_linear: output shape");
    const uint32_t tm = out.tile_rows;
    const std::vector<Range> all_chunks = feature_major_chunks(ctx, tokens);
    const std::vector<Range> out_tiles = split(weights.columns, tm);
    const std::vector<Range> k_tiles = split(in.rows, in.tile_rows);
    const size_t chunks_per_pass = feature_major_chunks_per_pass(ctx, all_chunks);

    for (size_t pass = 0; pass < all_chunks.size(); pass += chunks_per_pass) {
        const std::vector<Range> chunks(all_chunks.begin() + pass,
                                        all_chunks.begin() + std::min(all_chunks.size(), pass + chunks_per_pass));
        // Blocks of whole output tiles, none across a column panel of the weights.
        for (const Range& block_range : weights.blocks(feature_major_group(ctx, chunks) * tm)) {
            if (block_range.begin % tm != 0) throw std::logic_error("feature_major_linear: a weight panel of part of an output tile");
            const uint32_t og = block_range.begin / tm, count = ceil_div(block_range.size, tm);
            std::vector<Accumulator> acc;
            const std::vector<uint32_t> banks = ring_banks(ctx, pack(ctx, feature_major_widths(chunks, count), &acc));
            const uint32_t block_columns = block_range.size;
            // K-tiles per block: as many as a slot holds when the matrix keeps a partition's k-tiles
            // adjacent (one long DMA run per partition row), else one.
            const uint32_t per_block = ctx.weights.tiles_per_slot(weights, block_columns);
            WeightBlock block;
            for (size_t k = 0; k < k_tiles.size(); ++k) {
                const uint32_t in_block = uint32_t(k % per_block);
                if (in_block == 0)
                    block = ctx.weights.load_tiles(weights, k_tiles[k], std::min<uint32_t>(per_block, uint32_t(k_tiles.size() - k)),
                                                   out_tiles[og].begin, block_columns);
                for (uint32_t g = 0; g < count; ++g) {
                    const Range o = out_tiles[og + g];
                    const View stationary = block.part(in_block, k_tiles[k].size, g * tm, o.size);
                    for (size_t c = 0; c < chunks.size(); ++c) {
                        const Accumulator& a = acc[g * chunks.size() + c];
                        const View moving = builder::tile_dims(in.tiles[k], in.dtype, 0, k_tiles[k].size,
                                                               uint64_t(first_token + chunks[c].begin * token_stride),
                                                               {isa::Dim{int32_t(token_stride), chunks[c].size}});
                        ctx.core.matmul(psum_tile(ctx.core, banks[a.bank], o.size, a.element, chunks[c].size), stationary,
                                        moving, k > 0);
                    }
                }
            }
            for (uint32_t g = 0; g < count; ++g) {
                const Range o = out_tiles[og + g];
                for (size_t c = 0; c < chunks.size(); ++c) {
                    const Accumulator& a = acc[g * chunks.size() + c];
                    View dst = out.view(og + g, chunks[c].begin, chunks[c].size);
                    if (all_chunks.size() > 1) dst = dst.part();
                    const View src = psum_tile(ctx.core, banks[a.bank], o.size, a.element, chunks[c].size);
                    if (bias) {
                        const View b = bias->column(og + g, o.size);
                        ctx.core.activation(dst, src, func, 1.0f, &b);
                    } else {
                        ctx.core.activation(dst, src, func);
                    }
                }
            }
        }
    }
}

uint32_t feature_major_block_columns(const KernelContext& ctx, uint32_t tokens) {
    const std::vector<Range> all_chunks = feature_major_chunks(ctx, tokens);
    const std::vector<Range> first_pass(all_chunks.begin(), all_chunks.begin() + feature_major_chunks_per_pass(ctx, all_chunks));
    return feature_major_group(ctx, first_pass) * partition_tile_rows(ctx.core.spec());
}

uint32_t token_major_block_columns(const KernelContext& ctx, uint32_t tokens) {
    const TokenMajorShape s = token_major_shape(ctx, ceil_div(tokens, partition_tile_rows(ctx.core.spec())));
    return s.width * s.chunks_per_block;
}

void token_major_linear(KernelContext& ctx, const TileSet& in, const DramMatrix& weights, TileSet& out,
                        TokenEpilogue epilogue) {
    check_contraction(in, weights);
    if (out.rows != in.columns) throw std::logic_error("token_major_linear: output shape");
    std::vector<ContractionStep> steps;
    for (const Range& k : split(in.rows, in.tile_rows)) steps.push_back({weights, k});
    token_major_matmul(
        ctx, steps,
        [&](uint32_t k, uint32_t tile) {
            return builder::tile(in.tiles[k], in.dtype, 0, steps[k].rows.size, tile * out.tile_rows, out.rows_of(tile));
        },
        [](uint32_t) {}, out, epilogue);
}

void token_major_matmul(KernelContext& ctx, const std::vector<ContractionStep>& steps,
                        const std::function<View(uint32_t step, uint32_t token_tile)>& stationary,
                        const std::function<void(uint32_t step)>& prepare, TileSet& out, TokenEpilogue epilogue) {
    const uint32_t columns = out.columns;
    for (const ContractionStep& s : steps)
        if (s.matrix.columns != columns) throw std::logic_error("token_major_matmul: output shape");
    const uint32_t token_tiles = uint32_t(out.tiles.size());

    const TokenMajorShape shape = token_major_shape(ctx, token_tiles);
    const uint32_t width = shape.width, tiles_per_group = shape.tiles_per_group;

    uint32_t evacuation = 0;
    for (uint32_t tg = 0; tg < token_tiles; tg += tiles_per_group) {
        const uint32_t count = std::min(tiles_per_group, token_tiles - tg);
        // Blocks none across a column panel of the weights.
        for (const Range& block : steps.front().matrix.blocks(width * shape.chunks_per_block)) {
            const std::vector<Range> chunks = split(block.size, width);  // relative to the block
            // Accumulator of token tile j and chunk c: acc[j * chunks + c].
            std::vector<uint32_t> widths;
            for (uint32_t j = 0; j < count; ++j)
                for (const Range& c : chunks) widths.push_back(c.size);
            std::vector<Accumulator> acc;
            const std::vector<uint32_t> banks = ring_banks(ctx, pack(ctx, widths, &acc));
            auto accumulator = [&](uint32_t j, size_t c, uint32_t rows) {
                const Accumulator& a = acc[j * chunks.size() + c];
                return psum_tile(ctx.core, banks[a.bank], rows, a.element, chunks[c].size);
            };
            WeightBlock weights;
            uint32_t first = 0;  // the step whose k-tile is the block's first
            for (uint32_t k = 0; k < steps.size(); ++k) {
                if (k == 0 || k - first == adjacent_tiles(ctx, steps, first, block.size)) {
                    first = k;
                    const uint32_t tiles = adjacent_tiles(ctx, steps, k, block.size);
                    for (uint32_t j = k; j < k + tiles; ++j) prepare(j);
                    weights = ctx.weights.load_tiles(steps[k].matrix, steps[k].rows, tiles, block.begin, block.size);
                }
                for (uint32_t j = 0; j < count; ++j) {
                    const uint32_t tile = tg + j, rows = out.rows_of(tile);
                    for (size_t c = 0; c < chunks.size(); ++c) {
                        const View moving = weights.part(k - first, steps[k].rows.size, chunks[c].begin, chunks[c].size);
                        ctx.core.matmul(accumulator(j, c, rows), stationary(k, tile), moving, k > 0);
                    }
                }
            }
            for (uint32_t j = 0; j < count; ++j)
                for (size_t c = 0; c < chunks.size(); ++c) {
                    const uint32_t tile = tg + j, rows = out.rows_of(tile);
                    const View src = accumulator(j, c, rows);
                    const View dst = out.view(tile, block.begin + chunks[c].begin, chunks[c].size);
                    if (epilogue == TokenEpilogue::AddInto) {
                        ctx.core.tensor_tensor(isa::Engine::Dve, dst, src, dst, isa::AluOp::Add);
                    } else if (evacuation++ % 2 == 0) {
                        ctx.core.activation(dst.part(), src, isa::ActivationFunction::Identity);
                    } else {
                        ctx.core.tensor_copy(isa::Engine::Dve, dst.part(), src);
                    }
                }
        }
    }
}

}  // namespace nsim::kernels::device
