// A BERT small enough for tests to write, load and run in milliseconds.
#pragma once

#include "bert/bert_config.h"

namespace nsim::kernels::testing {

inline BertConfig small_bert_config() {
    BertConfig c;
    c.vocab_size = 40;
    c.hidden_size = 8;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 16;
    c.max_position_embeddings = 16;
    c.type_vocab_size = 2;
    c.num_labels = 2;
    return c;
}

}  // namespace nsim::kernels::testing
