#include "eval/pretraining_batches.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "common/input_error.h"

namespace nsim::kernels {
namespace {

class Choices {
public:
    explicit Choices(uint64_t seed) : engine_(seed) {}
    double uniform() { return double(engine_() >> 11) * 0x1.0p-53; }
    size_t below(size_t n) { return size_t(engine_() % n); }
    // Fisher-Yates with the engine's own draws (std::shuffle's use of them is the library's choice).
    template <class T>
    void shuffle(std::vector<T>& v) {
        for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
    }

private:
    std::mt19937_64 engine_;
};

}  // namespace

std::vector<PretrainingBatch> pretraining_batches(const BertTokenizer& tokenizer, const std::vector<SentencePair>& pairs,
                                                  const PretrainingBatchOptions& o) {
    if (o.rows == 0 || o.max_predictions == 0) throw InputError("pretraining batches need rows and predictions");
    const WordPieceVocab& vocab = tokenizer.vocab();
    const std::optional<int32_t> mask = vocab.find("[MASK]");
    if (!mask) throw InputError("the vocabulary has no [MASK] token to pretrain with");
    Choices choose(o.seed);
    std::vector<PretrainingBatch> batches;
    for (size_t first = 0; first + o.rows <= pairs.size(); first += o.rows) {
        PretrainingBatch batch;
        std::vector<EncodedInput> encoded;
        for (size_t i = first; i < first + o.rows; ++i) {
            const bool random_next = pairs.size() > 1 && choose.uniform() < 0.5;
            size_t other = i;
            if (random_next)
                while (other == i) other = choose.below(pairs.size());
            encoded.push_back(tokenizer.encode_pair(pairs[i].a, pairs[other].b, o.seq));
            batch.next_sentence.push_back(random_next ? 1 : 0);
        }
        batch.tokens = make_token_batch(encoded);
        size_t predictions = 0;
        for (size_t r = 0; r < o.rows; ++r) {
            int32_t* ids = batch.tokens.input_ids.data() + r * o.seq;
            const int32_t* attended = batch.tokens.attention_mask.data() + r * o.seq;
            std::vector<int32_t> candidates;
            for (size_t s = 0; s < o.seq; ++s)
                if (attended[s] && ids[s] != vocab.cls_id() && ids[s] != vocab.sep_id()) candidates.push_back(int32_t(s));
            choose.shuffle(candidates);
            const size_t wanted = std::max<size_t>(1, size_t(std::lround(double(candidates.size()) * o.masked_fraction)));
            candidates.resize(std::min({wanted, o.max_predictions, candidates.size()}));
            std::sort(candidates.begin(), candidates.end());
            for (size_t slot = 0; slot < o.max_predictions; ++slot) {
                if (slot >= candidates.size()) {
                    batch.positions.push_back(0);
                    batch.labels.push_back(-1);
                    continue;
                }
                const int32_t position = candidates[slot];
                batch.positions.push_back(position);
                batch.labels.push_back(ids[position]);
                const double roll = choose.uniform();
                if (roll < 0.8) ids[position] = *mask;
                else if (roll < 0.9) ids[position] = int32_t(choose.below(vocab.size()));
                ++predictions;
            }
        }
        for (int32_t label : batch.labels) batch.weights.push_back(label >= 0 ? 1.0f / float(predictions) : 0.0f);
        batches.push_back(std::move(batch));
    }
    return batches;
}

}  // namespace nsim::kernels
