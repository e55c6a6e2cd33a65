// Linear layers' weight and bias gradients made once per micro-step over all its tokens (or, for
// the masked-LM decoder, all its predictions), instead of once per pass: a micro-step that runs in passes (its activations spilled to device
// memory, activation_spill.h) would otherwise add every linear's dW = dy^T x into its fp32 sum at
// every pass (a load and a store of 8 bytes per parameter per pass: BERT-large in passes of one
// sequence moved ~39 GB per micro-step so). Here each pass only stores each linear's dy (token-major,
// matmul dtype) at its tokens' rows of a tensor of the micro-batch's tokens, next to the spilled x;
// after the last pass, `finish` makes each gradient over all the tokens, holding the narrower of x
// and dy on chip and streaming the wider in column chunks, the tokens accumulating in PSUM, and
// hands each block to the sums once. What a hand-scheduled kernel does with a dW (NKI's
// "accumulate over the batch in PSUM"). The decoder's dy (dlogits) comes a vocabulary chunk at a
// time, each at its columns of a [predictions, vocabulary] tensor.
// Every other gradient (layernorms, heads, tables) goes through to the sums as it is made.
#pragma once

#include <map>

#include "builder/program_builder.h"
#include "train/dram_tiles.h"
#include "train/gradient_sums.h"

namespace nsim::kernels::train {

class DeferredWeightGradients : public GradientSink {
public:
    // dy tensors are added to `program` as the first pass stores them.
    DeferredWeightGradients(builder::ProgramBuilder& program, const TensorChannels& channels, GradientSums& sums)
        : program_(program), channels_(channels), sums_(sums) {}

    // Where linear `weight`'s input x lives ([every pass's rows, in]: what the forward spilled, a
    // pass's rows after the pass before's), and its outputs (0: as many as dy has columns): set
    // before the pass's backward reaches it.
    void set_input(uint32_t weight, const DramTensor& x, uint32_t outputs = 0) { inputs_[weight] = {x, outputs}; }
    // The pass (of the micro-step's `passes`) whose gradients come next: a pass's dy goes at rows
    // [pass x rows per pass, + rows per pass) of its tensor (rows per pass: the input's rows / passes).
    void set_pass(uint32_t pass, uint32_t passes) {
        pass_ = pass;
        passes_ = passes;
    }

    uint32_t block_columns() const override { return sums_.block_columns(); }
    TileSet begin(uint32_t parameter, uint32_t first_row, uint32_t first_column, uint32_t rows, uint32_t columns) override {
        return sums_.begin(parameter, first_row, first_column, rows, columns);
    }
    void end(uint32_t parameter, const TileSet& block, uint32_t first_row, uint32_t first_column) override {
        sums_.end(parameter, block, first_row, first_column);
    }
    // Stores dy at the pass's rows (from its chunk's first token on) and the chunk's columns (x must
    // have been given by set_input; its tiles are not read).
    void linear(KernelContext& ctx, const TileSet& x, const TileSet& dy, uint32_t weight, uint32_t bias,
                LinearSlice at) override;
    // Stores `set` at rows [pass * set rows, + set rows) of `tensor` (a pass's share of an input),
    // over the channel the gradients read it from.
    void store_pass_rows(KernelContext& ctx, const TileSet& set, const DramTensor& tensor) const;

    // After the micro-step's last pass: every deferred gradient over all the tokens into the sums
    // (stored if `first`: the step's first micro-step), in SBUF above the current mark (given back).
    void finish(KernelContext& ctx, bool first);

private:
    struct Deferred {
        uint32_t weight = 0, bias = 0;
        DramTensor x, dy;
    };
    struct Input {
        DramTensor x;
        uint32_t outputs = 0;
    };
    void make(KernelContext& ctx, const Deferred& d, uint32_t first_row, uint32_t rows);
    // The rows of one group of d's (a multiple of a partition tile) whose operands fit in the SBUF left.
    uint32_t group_rows(KernelContext& ctx, const Deferred& d) const;

    builder::ProgramBuilder& program_;
    const TensorChannels& channels_;
    GradientSums& sums_;
    uint32_t pass_ = 0, passes_ = 1;
    std::map<uint32_t, Input> inputs_;  // by weight parameter
    std::vector<Deferred> deferred_;         // in the order the backward made them
};

}  // namespace nsim::kernels::train
