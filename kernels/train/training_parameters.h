// The parameters of BertForSequenceClassification in device memory and on chip, laid out for one
// training step (training_step.h): each parameter once in Hugging Face's layout ([out, in], [1, n],
// [rows, hidden]) in the activation dtype - the copy AdamW updates and dX = dY W streams - plus what
// the forward kernels read: W^T [in, out] for the weight ring, biases as per-partition columns for
// feature-major outputs or as broadcast rows for token-major ones, layernorm gamma/beta as broadcast
// rows (and fp32 gamma rows for the backward), and m and v per parameter (AdamW's states).
// Requires the matmul and activation dtypes to be the same (fp32 or bf16 programs): the parameter
// copy is also the backward's weight operand.
#pragma once

#include <optional>

#include "bert/bert_weights.h"
#include "device/embedding_kernel.h"
#include "train/tile_products.h"

namespace nsim::kernels::train {

// A linear layer's and a layernorm's parameters: in device memory, and their on-chip copies (set by
// load_on_chip_rows; an encoder layer's are loaded each time the layer runs, with_on_chip_rows, so
// that only the running layer's occupy SBUF).
struct TrainedLinear {
    std::string name;
    device::DramMatrix forward;   // W^T [in, out] (matmul dtype)
    device::DramMatrix backward;  // W [out, in]: also the parameter AdamW updates
    uint32_t bias = 0;            // the bias parameter [1, out]
    bool wants_bias_row = false;  // its output is token-major: it adds the bias as a row
    device::ColumnParams bias_columns;        // fp32, per output feature on partitions
    std::optional<builder::Buffer> bias_row;  // fp32 [partitions, out], for token-major outputs
};

struct TrainedNorm {
    std::string name;
    uint32_t gamma = 0, beta = 0, size = 0;  // the parameters [1, size]
    builder::Buffer gamma_row, beta_row;  // activation dtype [partitions, hidden]
    builder::Buffer gamma_row_fp32;       // the backward's
    device::ColumnParams gamma_column, beta_column;
};

struct TrainedLayer {
    TrainedLinear query, key, value, attention_output, intermediate, output;
    TrainedNorm attention_norm, output_norm;
};

// One parameter as AdamW sees it: [rows, columns] tensors in device memory (the parameter in the
// activation dtype, m and v in the states' dtype), in bert_tensor_slots order; a linear weight also
// has its W^T [columns, rows], which the update rewrites.
struct ParameterTensors {
    std::string name;
    uint32_t rows = 0, columns = 0;
    uint32_t parameter = 0, m = 0, v = 0;
    uint32_t transposed = isa::kNoTensor;
};

// BertForPreTraining's masked-LM head: the transform's dense and LayerNorm, the decoder's bias, and
// the decoder's W^T, which is the word embeddings' transpose (tied: the word table's parameter keeps
// it as its `transposed`, so AdamW rewrites it with the table).
struct TrainedMaskedLmHead {
    TrainedLinear transform;
    TrainedNorm transform_norm;
    uint32_t decoder_bias = 0;   // the parameter [1, vocab]
    device::DramMatrix decoder;  // word embeddings^T [hidden, vocab]
};

struct TrainedBert {
    device::EmbeddingTensors tables;  // activation dtype; also the parameters
    TrainedNorm embedding_norm;
    std::vector<TrainedLayer> layers;
    TrainedLinear pooler, classifier;  // with a masked-LM head: the classifier is the next-sentence one
    std::optional<TrainedMaskedLmHead> masked_lm;
    std::vector<ParameterTensors> parameters;
};

// Adds every tensor to `program` (m and v: AdamW's states before this step, the same layout as
// `weights`, stored as `states`: fp32 or the activation dtype; with weights.pretraining, the masked-LM
// head too), and no instruction. The parameters, states and W^T are State tensors (loaded once, then
// the program's to update); the on-chip copies (bias columns and rows, layernorm rows) are read from
// the parameters at each execution, so a step sees what the one before it wrote: load_on_chip_rows
// (the embeddings', pooler's, classifier's and masked-LM transform's, into new SBUF buffers, by each
// graph that runs them) and with_on_chip_rows (an encoder layer's, when it runs).
TrainedBert add_trained_bert(builder::ProgramBuilder& program, const device::DtypePlan& dtypes, const BertWeights& weights,
                             const BertWeights& m, const BertWeights& v, isa::DType states = isa::DType::Fp32);
void load_on_chip_rows(KernelContext& ctx, builder::DmaChannel& channel, TrainedBert& model);

// The on-chip copies of a parameter read from device memory over `channel` into new SBUF buffers.
void load_on_chip_rows(KernelContext& ctx, builder::DmaChannel& channel, TrainedLinear& linear);
void load_on_chip_rows(KernelContext& ctx, builder::DmaChannel& channel, TrainedNorm& norm);
// A copy of an encoder layer with the on-chip copies its forward reads loaded (all of them), or
// those its backward reads (the layernorms' fp32 gamma rows; encoder_layer_backward).
enum class LayerPass { Forward, Backward };
TrainedLayer with_on_chip_rows(KernelContext& ctx, builder::DmaChannel& channel, const TrainedLayer& layer,
                               LayerPass pass = LayerPass::Forward);

// An fp32 [tile rows, count] buffer of zeros: the value bias of attention when V already holds it.
device::ColumnParams zero_columns(KernelContext& ctx, uint32_t count);

}  // namespace nsim::kernels::train
