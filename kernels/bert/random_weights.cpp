#include "bert/random_weights.h"

namespace nsim::kernels {
namespace {

// How far LayerNorm parameters stray from the identity (gamma 1, beta 0).
constexpr float kLayerNormSpread = 0.1f;

// SplitMix64: tiny, fully specified, and good enough to make weights.
class SplitMix64 {
public:
    explicit SplitMix64(uint64_t state) : state_(state) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }

private:
    uint64_t state_;
};

uint64_t fnv1a(std::string_view text) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 0x100000001b3ull;
    }
    return hash;
}

// Sum of the four 16-bit uniforms in one 64-bit draw (Irwin-Hall, n = 4), centred and scaled to unit
// variance: bell-shaped within +-3.46 sigma, and only exact integer and double arithmetic.
double approximately_normal(uint64_t draw) {
    constexpr double kUnitVariance = 1.7320508075688772 / 65536.0;  // sqrt(12 / n) / 2^16
    uint64_t sum = 0;
    for (int i = 0; i < 4; ++i) sum += (draw >> (16 * i)) & 0xffffu;
    return (static_cast<double>(sum) - 2.0 * 65535.0) * kUnitVariance;
}

}  // namespace

void fill_random_normal(Tensor& tensor, uint64_t seed, std::string_view name, float mean, float stddev) {
    SplitMix64 rng(seed ^ fnv1a(name));
    for (float& value : tensor.values)
        value = static_cast<float>(mean + stddev * approximately_normal(rng.next()));
}

BertWeights random_bert_weights(const BertConfig& config, uint64_t seed, bool with_embeddings, bool pretraining) {
    BertWeights weights = make_empty_bert_weights(config, with_embeddings, pretraining);
    const auto range = static_cast<float>(config.initializer_range);
    for (BertTensorSlot& slot : bert_tensor_slots(weights, with_embeddings)) {
        if (!slot.is_layer_norm)
            fill_random_normal(*slot.tensor, seed, slot.name, 0.0f, range);
        else if (slot.name.size() >= 7 && slot.name.compare(slot.name.size() - 7, 7, ".weight") == 0)
            fill_random_normal(*slot.tensor, seed, slot.name, 1.0f, kLayerNormSpread);
        else
            fill_random_normal(*slot.tensor, seed, slot.name, 0.0f, kLayerNormSpread);
    }
    return weights;
}

}  // namespace nsim::kernels
