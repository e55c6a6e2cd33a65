#include "reference/bert_pretraining_backward.h"

#include <stdexcept>

#include "reference/activations.h"
#include "reference/cross_entropy.h"
#include "reference/elementwise_backward.h"
#include "reference/layer_norm.h"
#include "reference/layer_norm_backward.h"
#include "reference/linear.h"
#include "reference/linear_backward.h"

namespace nsim::kernels::reference {

BertGradients bert_pretraining_gradients(const BertWeights& weights, const TokenBatch& tokens,
                                         const PretrainingLabels& labels) {
    if (!weights.pretraining) throw std::invalid_argument("bert_pretraining_gradients: the weights have no pretraining heads");
    const BertConfig& c = weights.config;
    const BertPretrainingHeads& heads = *weights.pretraining;
    const size_t seq = tokens.seq_len, hidden = size_t(c.hidden_size);
    if (labels.positions.size() != tokens.batch * labels.per_sequence || labels.tokens.size() != labels.positions.size())
        throw std::invalid_argument("bert_pretraining_gradients: prediction slots do not match the batch");
    const BertEncoderForward f = bert_encoder_forward(weights, tokens);
    Tensor dx;
    BertGradients g = next_sentence_head_gradients(weights, f, tokens, labels.next_sentence, dx);

    // The predicted tokens' rows of the encoder output, and their labels.
    std::vector<size_t> rows;
    std::vector<int32_t> targets;
    for (size_t i = 0; i < labels.positions.size(); ++i) {
        if (labels.tokens[i] < 0) continue;
        if (labels.positions[i] < 0 || size_t(labels.positions[i]) >= seq)
            throw std::invalid_argument("bert_pretraining_gradients: a position outside its sequence");
        rows.push_back(i / labels.per_sequence * seq + size_t(labels.positions[i]));
        targets.push_back(labels.tokens[i]);
    }
    Tensor masked({rows.size(), hidden});
    for (size_t r = 0; r < rows.size(); ++r)
        for (size_t h = 0; h < hidden; ++h) masked.at(r, h) = f.output.at(rows[r], h);
    const Tensor transform_in = linear(masked, heads.transform);
    const Tensor transform_out = apply_activation(transform_in, c.hidden_act);
    const Tensor transformed = layer_norm(transform_out, heads.transform_norm, c.layer_norm_eps);
    const LinearWeights decoder{weights.embeddings->word, heads.decoder_bias};
    const CrossEntropy mlm = cross_entropy(linear(transformed, decoder), targets);
    g.loss += mlm.loss;

    const LinearGradients d_decoder = linear_backward(transformed, decoder.weight, mlm.logits);
    const LayerNormGradients d_norm =
        layer_norm_backward(transform_out, heads.transform_norm.gamma, d_decoder.input, c.layer_norm_eps);
    const LinearGradients d_transform =
        linear_backward(masked, heads.transform.weight, gelu_backward(transform_in, d_norm.input));
    BertPretrainingHeads& gh = *g.weights.pretraining;
    gh.transform.weight = d_transform.weight;
    gh.transform.bias = d_transform.bias;
    gh.transform_norm.gamma = d_norm.gamma;
    gh.transform_norm.beta = d_norm.beta;
    gh.decoder_bias = d_decoder.bias;
    for (size_t r = 0; r < rows.size(); ++r)
        for (size_t h = 0; h < hidden; ++h) dx.at(rows[r], h) += d_transform.input.at(r, h);

    bert_encoder_backward(weights, tokens, f, std::move(dx), g.weights);
    Tensor& word = g.weights.embeddings->word;  // the tied decoder's share
    for (size_t i = 0; i < word.values.size(); ++i) word.values[i] += d_decoder.weight.values[i];
    return g;
}

}  // namespace nsim::kernels::reference
