#include "train/dropout.h"

#include <cstring>

namespace nsim::kernels::train {

uint32_t dropout_key(uint32_t layer, DropoutSite site, uint32_t head) {
    return (layer * 4 + uint32_t(site)) * 256 + head;
}

LayerDropout TrainingDropout::layer(uint32_t l) const {
    LayerDropout d;
    d.hidden = hidden;
    d.attention_output_key = dropout_key(l, DropoutSite::AttentionOutput);
    d.ffn_output_key = dropout_key(l, DropoutSite::FfnOutput);
    d.first_token = first_token;
    d.attention.probability = attention;
    d.attention.first_key = dropout_key(l, DropoutSite::AttentionProbabilities);
    d.attention.first_row = first_token;
    return d;
}

void dropout_tokens(KernelContext& ctx, const TileSet& src, TileSet& dst, float probability, uint32_t key,
                    uint32_t first_token) {
    if (probability == 0 && &src == &dst) return;
    for (uint32_t k = 0; k < src.tiles.size(); ++k)
        ctx.core.dropout(dst.view(k, 0, dst.columns), src.view(k, 0, src.columns), probability, key,
                         first_token + k * src.tile_rows);
}

void seed_dropout_generator(KernelContext& ctx, builder::ProgramBuilder& program, builder::DmaChannel& channel,
                            uint32_t seed) {
    const int32_t start[2] = {int32_t(seed), 0};
    std::vector<uint8_t> bytes(sizeof(start));
    std::memcpy(bytes.data(), start, sizeof(start));
    const uint32_t tensor =
        program.add_tensor(kDropoutGeneratorTensor, isa::TensorRole::Scratch, isa::DType::Int32, {1, 2}, std::move(bytes));
    const builder::Buffer buffer = ctx.core.sbuf(2 * 4, "dropout generator");
    const builder::View state = builder::tile(buffer, isa::DType::Int32, 0, 1, 0, 2);
    const builder::View in_memory = builder::dram(builder::dram_rows(tensor, isa::DType::Int32, 2, 0, 1, 0, 2));
    ctx.core.dma(channel, {builder::DmaPiece{state, in_memory}});
    ctx.core.set_rng_seed(state);
    const builder::View execution = builder::tile(buffer, isa::DType::Int32, 0, 1, 1, 1);
    ctx.core.tensor_scalar(isa::Engine::Dve, execution, execution, isa::AluOp::Add, 1.0f);
    ctx.core.dma(channel, {builder::DmaPiece{in_memory, state}});
}

}  // namespace nsim::kernels::train
