#include "reference/bert_backward.h"

#include <stdexcept>

#include "reference/activations.h"
#include "reference/attention.h"
#include "reference/attention_backward.h"
#include "reference/classifier_head.h"
#include "reference/classifier_head_backward.h"
#include "reference/cross_entropy.h"
#include "reference/elementwise_backward.h"
#include "reference/embedding_backward.h"
#include "reference/layer_norm.h"
#include "reference/layer_norm_backward.h"
#include "reference/linear.h"
#include "reference/linear_backward.h"

namespace nsim::kernels::reference {
namespace {

// rows[t] of `table` added into sum's row t, ids[t] naming the row (an embedding lookup's gather).
void add_rows(Tensor& sum, const Tensor& table, const std::vector<int32_t>& ids) {
    for (size_t t = 0; t < ids.size(); ++t) {
        if (ids[t] < 0 || size_t(ids[t]) >= table.rows()) throw std::invalid_argument("embedding id outside its table");
        for (size_t h = 0; h < sum.cols(); ++h) sum.at(t, h) += table.at(size_t(ids[t]), h);
    }
}

std::vector<int32_t> position_ids(size_t batch, size_t seq) {
    std::vector<int32_t> ids(batch * seq);
    for (size_t t = 0; t < ids.size(); ++t) ids[t] = int32_t(t % seq);
    return ids;
}

void assign(LinearWeights& g, const LinearGradients& d) {
    g.weight = d.weight;
    g.bias = d.bias;
}

void assign(LayerNormWeights& g, const LayerNormGradients& d) {
    g.gamma = d.gamma;
    g.beta = d.beta;
}

}  // namespace

EncoderLayerActivations encoder_layer_activations(const Tensor& x, const BertLayerWeights& w, const BertConfig& c,
                                                  const Tensor& mask, size_t batch, size_t seq,
                                                  const LayerDropoutMasks* dropout) {
    const size_t heads = size_t(c.num_attention_heads);
    const LayerDropoutMasks none;
    const LayerDropoutMasks& d = dropout ? *dropout : none;
    EncoderLayerActivations a;
    a.x = x;
    a.q = linear(x, w.query);
    a.k = linear(x, w.key);
    a.v = linear(x, w.value);
    const Tensor probabilities = apply_dropout(attention_probabilities(a.q, a.k, mask, batch, seq, heads),
                                               d.attention_probabilities);
    a.context = attention_context(probabilities, a.v, batch, seq, heads);
    a.attention_sum = add(apply_dropout(linear(a.context, w.attention_output), d.attention_output), x);
    a.attended = layer_norm(a.attention_sum, w.attention_layer_norm, c.layer_norm_eps);
    a.intermediate_in = linear(a.attended, w.intermediate);
    a.intermediate = apply_activation(a.intermediate_in, c.hidden_act);
    a.output_sum = add(apply_dropout(linear(a.intermediate, w.output), d.ffn_output), a.attended);
    return a;
}

Tensor encoder_layer_backward(const EncoderLayerActivations& a, const BertLayerWeights& w, const BertConfig& c,
                              const Tensor& mask, const Tensor& dy, size_t batch, size_t seq, BertLayerWeights& g,
                              const LayerDropoutMasks* dropout) {
    const LayerDropoutMasks none;
    const LayerDropoutMasks& d = dropout ? *dropout : none;
    const LayerNormGradients out_norm = layer_norm_backward(a.output_sum, w.output_layer_norm.gamma, dy, c.layer_norm_eps);
    assign(g.output_layer_norm, out_norm);
    const LinearGradients output =
        linear_backward(a.intermediate, w.output.weight, apply_dropout(out_norm.input, d.ffn_output));
    assign(g.output, output);
    const LinearGradients inter =
        linear_backward(a.attended, w.intermediate.weight, gelu_backward(a.intermediate_in, output.input));
    assign(g.intermediate, inter);
    const Tensor d_attended = add(out_norm.input, inter.input);
    const LayerNormGradients attn_norm =
        layer_norm_backward(a.attention_sum, w.attention_layer_norm.gamma, d_attended, c.layer_norm_eps);
    assign(g.attention_layer_norm, attn_norm);
    const LinearGradients projection =
        linear_backward(a.context, w.attention_output.weight, apply_dropout(attn_norm.input, d.attention_output));
    assign(g.attention_output, projection);
    const AttentionGradients attention =
        attention_backward(a.q, a.k, a.v, mask, projection.input, batch, seq, size_t(c.num_attention_heads),
                           d.attention_probabilities.values.empty() ? nullptr : &d.attention_probabilities);
    const LinearGradients q = linear_backward(a.x, w.query.weight, attention.query);
    const LinearGradients k = linear_backward(a.x, w.key.weight, attention.key);
    const LinearGradients v = linear_backward(a.x, w.value.weight, attention.value);
    assign(g.query, q);
    assign(g.key, k);
    assign(g.value, v);
    return add(add(attn_norm.input, q.input), add(k.input, v.input));
}

BertEncoderForward bert_encoder_forward(const BertWeights& weights, const TokenBatch& tokens,
                                        const EncoderDropoutMasks* dropout) {
    if (!weights.embeddings) throw std::invalid_argument("bert reference gradients: the weights have no embeddings");
    if (weights.config.hidden_act != HiddenActivation::GeluErf)
        throw std::invalid_argument("bert reference gradients: only the erf GELU has a backward here");
    const BertConfig& c = weights.config;
    const BertEmbeddingWeights& e = *weights.embeddings;
    const size_t batch = tokens.batch, seq = tokens.seq_len, hidden = size_t(c.hidden_size);
    BertEncoderForward f;
    f.mask = attention_mask_bias(tokens.attention_mask, batch, seq);
    f.embedding_sum = Tensor({batch * seq, hidden});
    add_rows(f.embedding_sum, e.word, tokens.input_ids);
    add_rows(f.embedding_sum, e.position, position_ids(batch, seq));
    add_rows(f.embedding_sum, e.token_type, tokens.token_type_ids);
    Tensor x = layer_norm(f.embedding_sum, e.layer_norm, c.layer_norm_eps);
    if (dropout) x = apply_dropout(x, dropout->embedding_output);
    for (const BertLayerWeights& w : weights.layers) {
        const size_t l = f.layers.size();
        f.layers.push_back(encoder_layer_activations(x, w, c, f.mask, batch, seq, dropout ? &dropout->layers.at(l) : nullptr));
        x = layer_norm(f.layers.back().output_sum, w.output_layer_norm, c.layer_norm_eps);
    }
    f.output = std::move(x);
    return f;
}

void bert_encoder_backward(const BertWeights& weights, const TokenBatch& tokens, const BertEncoderForward& f, Tensor dx,
                           BertWeights& g, const EncoderDropoutMasks* dropout) {
    const BertConfig& c = weights.config;
    const BertEmbeddingWeights& e = *weights.embeddings;
    const size_t batch = tokens.batch, seq = tokens.seq_len;
    for (size_t l = f.layers.size(); l-- > 0;)
        dx = encoder_layer_backward(f.layers[l], weights.layers[l], c, f.mask, dx, batch, seq, g.layers[l],
                                    dropout ? &dropout->layers.at(l) : nullptr);
    if (dropout) dx = apply_dropout(dx, dropout->embedding_output);
    BertEmbeddingWeights& ge = *g.embeddings;
    const LayerNormGradients norm = layer_norm_backward(f.embedding_sum, e.layer_norm.gamma, dx, c.layer_norm_eps);
    assign(ge.layer_norm, norm);
    ge.word = embedding_backward(tokens.input_ids, norm.input, e.word.rows());
    ge.position = embedding_backward(position_ids(batch, seq), norm.input, e.position.rows());
    ge.token_type = embedding_backward(tokens.token_type_ids, norm.input, e.token_type.rows());
}

BertGradients next_sentence_head_gradients(const BertWeights& weights, const BertEncoderForward& f,
                                           const TokenBatch& tokens, const std::vector<int32_t>& labels, Tensor& dx) {
    const size_t batch = tokens.batch, seq = tokens.seq_len;
    const Tensor logits = classifier(pooler(f.output, weights.pooler, batch, seq), weights.classifier);
    BertGradients g{0, make_empty_bert_weights(weights.config, true, weights.pretraining.has_value())};
    const CrossEntropy loss = cross_entropy(logits, labels);
    g.loss = loss.loss;
    const ClassifierHeadGradients head =
        classifier_head_backward(f.output, weights.pooler, weights.classifier, loss.logits, batch, seq);
    assign(g.weights.pooler, head.pooler);
    assign(g.weights.classifier, head.classifier);
    dx = head.hidden;
    return g;
}

BertGradients bert_classification_gradients(const BertWeights& weights, const TokenBatch& tokens,
                                            const std::vector<int32_t>& labels, const EncoderDropoutMasks* dropout) {
    const BertEncoderForward f = bert_encoder_forward(weights, tokens, dropout);
    Tensor dx;
    BertGradients g = next_sentence_head_gradients(weights, f, tokens, labels, dx);
    bert_encoder_backward(weights, tokens, f, std::move(dx), g.weights, dropout);
    return g;
}

}  // namespace nsim::kernels::reference
