#include "reference/bert_forward.h"

#include <stdexcept>

#include "reference/attention.h"
#include "reference/classifier_head.h"
#include "reference/embeddings.h"
#include "reference/encoder_layer.h"

namespace nsim::kernels::reference {

BertForwardResult bert_forward_from_embeddings(const BertWeights& weights, Tensor embeddings,
                                               const std::vector<int32_t>& attention_mask, size_t batch, size_t seq) {
    if (embeddings.rows() != batch * seq || embeddings.cols() != static_cast<size_t>(weights.config.hidden_size))
        throw std::invalid_argument("bert_forward_from_embeddings: embeddings are not [batch * seq, hidden]");
    BertForwardResult result;
    result.embeddings = std::move(embeddings);
    const Tensor mask_bias = attention_mask_bias(attention_mask, batch, seq);
    result.layer_outputs.reserve(weights.layers.size());  // x points into it
    const Tensor* x = &result.embeddings;
    for (const BertLayerWeights& layer : weights.layers) {
        result.layer_outputs.push_back(encoder_layer(*x, layer, weights.config, mask_bias, batch, seq));
        x = &result.layer_outputs.back();
    }
    result.pooled = pooler(*x, weights.pooler, batch, seq);
    result.logits = classifier(result.pooled, weights.classifier);
    return result;
}

BertForwardResult bert_forward(const BertWeights& weights, const TokenBatch& tokens) {
    if (!weights.embeddings) throw std::invalid_argument("bert_forward: these weights have no embedding tables");
    Tensor x = embeddings(*weights.embeddings, tokens, weights.config.layer_norm_eps);
    return bert_forward_from_embeddings(weights, std::move(x), tokens.attention_mask, tokens.batch, tokens.seq_len);
}

}  // namespace nsim::kernels::reference
