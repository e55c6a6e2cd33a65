// Where the backward kernels put parameter gradients (fp32): a block of rows x columns at a time,
// each block written into the room `begin` hands out and given back with `end` once written. A
// training step adds each block into its sum in device memory as soon as it is made
// (training_step.cpp), so no layer's gradients need to fit on chip at once (a BERT-base layer's are
// 216 KiB per partition, more than SBUF); tests and small models collect them in whole on-chip
// TileSets (OnChipGradients).
#pragma once

#include <map>

#include "train/tile_products.h"

namespace nsim::kernels::train {

inline constexpr uint32_t kNoParameter = UINT32_MAX;

// Which part of a linear layer's output gradient a dy is: its columns are the layer's outputs
// [first_output, + dy columns) (a layer made in chunks of outputs: the decoder over the vocabulary),
// its rows the pass's tokens [first_token, + dy rows) (a pass's backward in chunks of tokens).
struct LinearSlice {
    uint32_t first_output = 0, first_token = 0;
};

class GradientSink {
public:
    virtual ~GradientSink() = default;
    // Columns of the widest block a linear weight's gradient is cut into (rows: one partition tile).
    // Vector parameters (a layernorm's gamma and beta) come as one block of a whole row.
    virtual uint32_t block_columns() const = 0;
    // Room for rows [first_row, + rows) x columns [first_column, + columns) of gradient `parameter`.
    virtual TileSet begin(uint32_t parameter, uint32_t first_row, uint32_t first_column, uint32_t rows,
                          uint32_t columns) = 0;
    // That block is written.
    virtual void end(uint32_t parameter, const TileSet& block, uint32_t first_row, uint32_t first_column) = 0;
    // The weight and bias gradients of a linear layer from its input x and output gradient dy
    // (token-major), dy being `at` of the layer's outputs and the pass's tokens (LinearSlice): made
    // now, block by block (linear_parameter_gradients, below), x on chip and dy over the pass's tokens
    // at once, unless the sink keeps dy to make them later over more tokens (DeferredWeightGradients,
    // which also takes a pass in chunks of tokens, x its shape alone). `bias` kNoParameter: a layer
    // without one.
    virtual void linear(KernelContext& ctx, const TileSet& x, const TileSet& dy, uint32_t weight, uint32_t bias,
                        LinearSlice at);
};

// Blocks of whole rows of on-chip TileSets, one per parameter (given by the caller).
class OnChipGradients : public GradientSink {
public:
    void add(uint32_t parameter, TileSet* gradient) { gradients_[parameter] = gradient; }
    uint32_t block_columns() const override { return UINT32_MAX; }
    TileSet begin(uint32_t parameter, uint32_t first_row, uint32_t first_column, uint32_t rows, uint32_t columns) override;
    void end(uint32_t, const TileSet&, uint32_t, uint32_t) override {}

private:
    std::map<uint32_t, TileSet*> gradients_;
};

// dW = dy^T x and db = 1^T dy of a linear layer (linear_backward.h) into `sink`, block by block;
// `bias` kNoParameter: a layer without one.
void linear_parameter_gradients(KernelContext& ctx, const TileSet& x, const TileSet& dy, GradientSink& sink,
                                uint32_t weight, uint32_t bias);

}  // namespace nsim::kernels::train
