// The BERT model in the program's device memory, laid out for the kernels: Linear weights stored
// transposed ([in, out], so a block of rows is a contraction tile) in the matmul dtype; per-partition
// parameters (biases of feature-major outputs, layernorm gamma/beta for the feature-major copy) as
// fp32 columns [partitions, n]; layernorm rows [2, hidden] (gamma; beta + the bias folded into it,
// see layer_norm_kernel.h) in the residual dtype.
#pragma once

#include <cstdint>
#include <vector>

#include "bert/bert_weights.h"
#include "builder/program_builder.h"
#include "device/embedding_kernel.h"
#include "device/kernel_context.h"

namespace nsim::kernels::device {

// First column of each per-partition parameter in a layer's column tensor.
struct LayerColumns {
    uint32_t query_bias = 0, key_bias = 0, value_bias = 0, intermediate_bias = 0;
    uint32_t gamma1 = 0, beta1 = 0, gamma2 = 0, beta2 = 0, count = 0;
};
LayerColumns layer_columns(uint32_t hidden_tiles, uint32_t intermediate_tiles);

struct LayerTensors {
    DramMatrix query, key, value, attention_output, intermediate, output;
    uint32_t columns = 0;      // fp32 [tile rows, LayerColumns::count]
    uint32_t norm1_rows = 0;   // [2, hidden]: gamma1, beta1 + output bias
    uint32_t norm2_rows = 0;   // [2, hidden]: gamma2, beta2 + next layer's attention-output bias (0 after the last)
};

struct ModelTensors {
    std::vector<LayerTensors> layers;
    // Embedding: rows [2, hidden] (gamma, beta + layer 0's attention-output bias; for host embeddings
    // gamma is unused), columns fp32 [tile rows, 2 * hidden tiles] (gamma, beta; device only).
    uint32_t embedding_rows = 0, embedding_columns = 0;
    bool device_embedding = false;
    EmbeddingTensors tables;   // device embedding only
    DramMatrix pooler, classifier;
    uint32_t head_columns = 0;  // fp32 [tile rows, hidden tiles + 1]: pooler bias, classifier bias
    uint32_t column_count = 0;  // LayerColumns::count
};

// Column panels of each linear's weights (DramMatrix::panel_columns): the blocks the kernels that
// read them load (linear_kernels.h *_block_columns), chosen before the weights are written. 0: one
// panel, the whole width.
struct LayerPanels {
    uint32_t query = 0, key = 0, value = 0, attention_output = 0, intermediate = 0, output = 0;
};
struct WeightPanels {
    std::vector<LayerPanels> layers;  // one per layer, or empty: one panel each
    uint32_t pooler = 0, classifier = 0;
};

// Adds every weight tensor (with contents when `weights` is given) to the program.
ModelTensors add_model_tensors(builder::ProgramBuilder& program, const BertConfig& config, const DtypePlan& dtypes,
                               bool device_embedding, const BertWeights* weights, const WeightPanels& panels = {});

}  // namespace nsim::kernels::device
