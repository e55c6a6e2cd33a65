#include "train/training_step.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "train/activation_spill.h"
#include "train/classifier_head_backward.h"
#include "train/cross_entropy.h"
#include "train/deferred_weight_gradients.h"
#include "train/dropout.h"
#include "train/dram_tiles.h"
#include "train/embedding_backward.h"
#include "train/gradient_all_reduce.h"
#include "train/gradient_sums.h"
#include "train/layer_norm_backward.h"
#include "train/masked_lm_head.h"
#include "train/optimizer_step.h"
#include "train/phase_marks.h"
#include "train/training_forward.h"

namespace nsim::kernels::train {
namespace {

using builder::View;
using device::kFp32;

// DMA queue classes of every graph: the step's own loads and stores on the first, the weight ring's
// slots from the third on (as the kernel tests run them), the tensor channels after them.
constexpr uint32_t kStepClass = 0, kWeightClasses = 2, kWeightSlots = 3;

// One graph's core (ProgramBuilder::begin_graph gives each graph a fresh one): the step's channel and
// tensor channels, the weight ring and PSUM as one ring of every bank.
struct GraphCore {
    GraphCore(builder::ProgramBuilder& program, const device::DtypePlan& dtypes, uint32_t slot_columns)
        : core(program.core(0)),
          channel(core.dma_channel("step", kStepClass)),
          ring(core, kWeightSlots, slot_columns, dtypes.matmul, kWeightClasses),
          psum(core, 0, core.psum_banks()),
          ctx{core, ring, psum, dtypes} {
        std::vector<builder::DmaChannel*> all = {&channel};
        for (uint32_t i = 1; i < kTensorChannels; ++i)
            all.push_back(&core.dma_channel(channel.name() + "/" + std::to_string(i), kFirstTensorQueueClass + i - 1));
        channels = std::make_unique<TensorChannels>(std::move(all));
    }
    builder::CoreBuilder& core;
    builder::DmaChannel& channel;
    device::WeightRing ring;
    device::PsumRing psum;
    KernelContext ctx;
    std::unique_ptr<TensorChannels> channels;  // the sums', spilled activations' and optimizer's transfers
};

// Parameter numbers (bert_tensor_slots order): the three tables, the embedding layernorm, 16 per
// encoder layer (LayerParameter), then the pooler's and the classifier's weight and bias.
constexpr uint32_t kTables = 3, kEmbeddingNormGamma = 3, kFirstLayerParameter = 5;

// What every micro-step shares (loaded once per execution, before the micro-steps' memory).
struct Shared {
    TrainedBert model;
    device::AttentionShape shape;  // of one pass: shape.batch sequences
    uint32_t micro_batch = 0, passes = 1;
    uint32_t chunk_tokens = 0;  // TrainingOptions::chunk_tokens
    float layer_norm_eps = 1e-12f;
    TileSet position_ids;  // fp32 column for the micro-batch's tokens (a pass's: its first rows)
    TileSet cls_ids;       // fp32 column, for one pass
    builder::Buffer index_row, class_row, staging;
    // Pretraining: predictions per sequence; for one pass, each token's index and each prediction's
    // first token (b * seq) as fp32 columns and (offsets) a row on every partition; the vocabulary's
    // index row for the masked-LM loss.
    uint32_t max_predictions = 0, vocabulary_chunk = 0;
    TileSet token_index, prediction_offsets;
    builder::Buffer prediction_offset_row;
    uint32_t vocabulary_index = 0;  // the tensor of 0, 1, ... vocabulary_chunk - 1
    device::AttentionScratch attention;
    TileSet loss_sum;  // fp32 [1, 1]: the micro-step's loss over its passes
    uint32_t loss_output = 0;
    std::unique_ptr<GradientSums> sums;
    const TensorChannels* channels = nullptr;
    std::unique_ptr<ActivationSpill> spill;  // null: activations kept on chip
    // With a spill: the layers' weight gradients and the tables' made once per micro-step, after its
    // passes, over all its tokens (each pass stores the linears' dy and the embedding sum's gradient).
    std::unique_ptr<DeferredWeightGradients> deferred;
    DramTensor d_embedding_sum, mlm_transformed;  // every pass's: [tokens, hidden], [predictions, hidden]
    uint32_t table_chunk_rows = 0;
    PhaseMarks* phases = nullptr;
    float hidden_dropout = 0, attention_dropout = 0;
};

// One micro-step: its micro-batch in passes of shape.batch sequences, each a forward, loss and
// backward whose gradients add into the sums (a pass is to the micro-batch what a micro-step is to
// the step: its loss and gradient are its share of the micro-batch's mean, cross_entropy's mean_over).
class MicroStep {
public:
    MicroStep(KernelContext& ctx, builder::ProgramBuilder& program, builder::DmaChannel& channel, Shared& shared)
        : ctx_(ctx), program_(program), channel_(channel), s_(shared) {}

    // `first`: the step's first micro-step, whose first pass stores the gradients into the sums.
    void run(bool first) {
        const uint32_t rows = s_.micro_batch, seq = s_.shape.seq;
        input_ids_ = input(kInputIdsInput, {rows, seq}, isa::DType::Int32);
        token_types_ = input(kTokenTypeIdsInput, {rows, seq}, isa::DType::Int32);
        mask_ = input(kAttentionMaskInput, {rows, seq}, isa::DType::Int32);
        labels_ = input(kLabelsInput, {rows, 1}, kFp32);
        if (s_.model.masked_lm) {
            const std::vector<uint64_t> slots = {rows, s_.max_predictions};
            mlm_positions_ = input(kMaskedLmPositionsInput, slots, isa::DType::Int32);
            mlm_labels_ = input(kMaskedLmLabelsInput, slots, isa::DType::Int32);
            mlm_weights_ = input(kMaskedLmWeightsInput, slots, kFp32);
        }
        const uint64_t mark = ctx_.core.sbuf_mark();
        for (uint32_t j = 0; j < s_.passes; ++j) {
            ctx_.core.sbuf_rewind(mark);
            s_.sums->set_first(first && j == 0);
            pass(j);
        }
        if (!s_.deferred) return;
        ctx_.core.sbuf_rewind(mark);
        s_.sums->place_rooms();
        s_.deferred->finish(ctx_, first);
        s_.phases->end(kBackwardPhase);
        // The tables' gradients over the micro-batch's tokens, from the passes' embedding-sum gradients.
        const uint32_t tokens = s_.micro_batch * seq;
        const TileSet ids = column(input_ids_, isa::DType::Int32, 0, tokens, "input ids/fp32");
        const TileSet types = column(token_types_, isa::DType::Int32, 0, tokens, "token type ids/fp32");
        const DramTensor& d = s_.d_embedding_sum;
        TileSet d_sum = tiles(tokens, d.columns, d.dtype, "d embedding sum");
        load_tiles(ctx_, *s_.channels, {d.tensor, d.dtype, d.columns, 0, 0}, d_sum);
        s_.sums->set_first(first);
        table_gradients(ids, types, s_.position_ids, d_sum);
    }

private:
    void pass(uint32_t j) {
        const uint32_t batch = s_.shape.batch, seq = s_.shape.seq, count = batch * seq, first = j * batch;
        if (s_.deferred) s_.deferred->set_pass(j, s_.passes);
        const uint32_t num_labels = uint32_t(s_.model.classifier.backward.rows);
        const isa::DType mm = ctx_.dtypes.matmul;
        ForwardInputs in;
        in.input_ids = input_ids_;
        in.token_types = token_types_;
        in.first_row = first;
        in.shape = s_.shape;
        in.layer_norm_eps = s_.layer_norm_eps;
        in.spill = s_.spill.get();
        in.chunk_tokens = s_.chunk_tokens;
        in.dropout = {s_.hidden_dropout, s_.attention_dropout, first * seq};
        device::build_attention_mask(ctx_, s_.shape, mask_, first, channel_, s_.staging, s_.attention);
        // The ids again as fp32 columns (the DMA converts), for the one-hot scatter-adds; the labels.
        const TileSet ids = column(input_ids_, isa::DType::Int32, first * seq, count, "input ids/fp32");
        const TileSet types = column(token_types_, isa::DType::Int32, first * seq, count, "token type ids/fp32");
        const TileSet labels = column(labels_, kFp32, first, batch, "labels/fp32");

        std::optional<Predictions> predictions;
        if (s_.model.masked_lm) predictions = this->predictions(first);
        TileSet loss = j == 0 ? s_.loss_sum : tiles(1, 1, kFp32, "loss");  // below the forward: read after the backward
        const ForwardTiles f = training_forward(ctx_, channel_, s_.model, in, s_.attention);
        TileSet dlogits = tiles(batch, num_labels, mm, "dlogits");
        cross_entropy(ctx_, f.logits, labels, s_.class_row, dlogits, loss, s_.micro_batch);
        s_.phases->end(kForwardPhase);
        backward(f, in, dlogits, ids, types, count, predictions ? &*predictions : nullptr, loss);
        if (j > 0)
            ctx_.core.tensor_tensor(isa::Engine::Dve, s_.loss_sum.view(0, 0, 1), s_.loss_sum.view(0, 0, 1), loss.view(0, 0, 1),
                                    isa::AluOp::Add);
        if (j + 1 == s_.passes)
            ctx_.core.dma(channel_, {builder::DmaPiece{builder::dram(builder::dram_rows(s_.loss_output, kFp32, 1, 0, 1, 0, 1)),
                                                       s_.loss_sum.view(0, 0, 1)}});
    }

    // The masked-LM predictions of the pass whose first sequence is row `first` of the micro-batch.
    struct Predictions {
        TileSet positions, labels, weights;  // fp32 [predictions, 1]; positions: tokens of the pass
        TileSet onehot;                      // [tokens, predictions]: token t is prediction p's
    };
    Predictions predictions(uint32_t first) {
        const uint32_t per_sequence = s_.max_predictions, count = s_.shape.batch * per_sequence;
        const uint32_t slot = first * per_sequence, tokens = s_.shape.batch * s_.shape.seq;
        Predictions p;
        p.positions = column(mlm_positions_, isa::DType::Int32, slot, count, "mlm positions/fp32");
        p.labels = column(mlm_labels_, isa::DType::Int32, slot, count, "mlm labels/fp32");
        p.weights = column(mlm_weights_, kFp32, slot, count, "mlm weights");
        for (uint32_t t = 0; t < p.positions.tiles.size(); ++t)
            ctx_.core.tensor_tensor(isa::Engine::Dve, p.positions.view(t, 0, 1), p.positions.view(t, 0, 1),
                                    s_.prediction_offsets.view(t, 0, 1), isa::AluOp::Add);
        // The positions again as a row on every partition, each token compared with it.
        const builder::Buffer row = ctx_.core.sbuf(uint64_t(count) * 4, "mlm positions/row");
        broadcast_elements(ctx_, channel_, mlm_positions_, isa::DType::Int32, slot, count, row, kFp32, ctx_.partitions());
        const View all = builder::tile(row, kFp32, 0, ctx_.partitions(), 0, count);
        ctx_.core.tensor_tensor(isa::Engine::Dve, all, all,
                                builder::tile(s_.prediction_offset_row, kFp32, 0, ctx_.partitions(), 0, count),
                                isa::AluOp::Add);
        p.onehot = tiles(tokens, count, ctx_.dtypes.matmul, "mlm one-hot");
        for (uint32_t t = 0; t < p.onehot.tiles.size(); ++t)
            ctx_.core.tensor_partition_scalar(isa::Engine::Dve, p.onehot.view(t, 0, count),
                                              builder::tile(row, kFp32, 0, p.onehot.rows_of(t), 0, count),
                                              isa::AluOp::IsEqual, s_.token_index.view(t, 0, 1));
        return p;
    }

    uint32_t input(const std::string& name, std::vector<uint64_t> shape, isa::DType dtype) {
        return program_.add_tensor(name, isa::TensorRole::Input, dtype, std::move(shape));
    }
    TileSet tiles(uint32_t rows, uint32_t columns, isa::DType dtype, const std::string& what) {
        return device::allocate_tiles(ctx_.core, rows, columns, dtype, what);
    }
    // Elements [first, first + count) of a tensor as an fp32 [count, 1] TileSet.
    TileSet column(uint32_t tensor, isa::DType dtype, uint32_t first, uint32_t count, const std::string& what) {
        TileSet set = tiles(count, 1, kFp32, what);
        load_tiles(ctx_, channel_, {tensor, dtype, 1, first, 0}, set);
        return set;
    }

    // The gradients, each added into its sum as soon as it is made (the layers' a block at a time,
    // the tables' in chunks of rows) or, with a spill, the layers' weights' and the tables' after
    // the passes (Shared::deferred); each layer's SBUF goes to the next.
    void backward(const ForwardTiles& f, const ForwardInputs& in, const TileSet& dlogits, const TileSet& ids, const TileSet& types, uint32_t count,
                  const Predictions* predictions, TileSet& loss) {
        const isa::DType mm = ctx_.dtypes.matmul;
        const TrainedBert& model = s_.model;
        const uint32_t hidden = s_.shape.heads * s_.shape.head_size, layers = uint32_t(model.layers.size());
        const uint32_t num_labels = model.classifier.backward.rows;
        const uint32_t head = kFirstLayerParameter + kLayerParameters * layers;
        GradientSums& sums = *s_.sums;
        GradientSink& layer_sink = s_.deferred ? static_cast<GradientSink&>(*s_.deferred) : sums;
        sums.place_rooms();  // above the forward's SBUF, which is gone at the next pass's rewind
        // Layer l reads its output's gradient from dy[(l + 1) % 2] and writes its input's into dy[l % 2].
        // With a spill the heads' backward writes the encoder output's into the forward's spare carry,
        // and the layers' backward has the forward's SBUF above it (ForwardTiles::spare_mark): the
        // rooms and the other dy are placed there after the heads.
        const bool give_back = s_.spill != nullptr;
        TileSet dy[2];
        if (give_back) dy[layers % 2] = alias_as(f.spare, mm);
        else
            for (TileSet& d : dy) d = tiles(count, hidden, mm, "d layer io");
        uint64_t mark = ctx_.core.sbuf_mark();
        {
            LinearGradientTiles pooler{tiles(hidden, hidden, kFp32, "dpooler.weight"), tiles(1, hidden, kFp32, "dpooler.bias")};
            LinearGradientTiles classifier{tiles(num_labels, hidden, kFp32, "dclassifier.weight"),
                                           tiles(1, num_labels, kFp32, "dclassifier.bias")};
            classifier_head_backward(ctx_, {&f.cls, &f.pooled, &dlogits, &s_.cls_ids, model.pooler.backward,
                                            model.classifier.backward, s_.index_row},
                                     {&dy[layers % 2], &pooler.weight, &pooler.bias, &classifier.weight, &classifier.bias});
            uint32_t i = head;
            for (const TileSet* g : {&pooler.weight, &pooler.bias, &classifier.weight, &classifier.bias}) sums.add(*g, i++, 0);
        }
        if (predictions) {
            ctx_.core.sbuf_rewind(mark);
            masked_lm(f, in, *predictions, head + 4, loss, dy[layers % 2]);
        }
        if (give_back) {
            ctx_.core.sbuf_rewind(f.spare_mark);
            sums.place_rooms();
            dy[(layers + 1) % 2] = tiles(count, hidden, mm, "d layer io");
            mark = ctx_.core.sbuf_mark();
        }
        for (uint32_t l = layers; l-- > 0;) {
            ctx_.core.sbuf_rewind(mark);
            const TrainedLayer w = with_on_chip_rows(ctx_, channel_, model.layers[l], LayerPass::Backward);
            // Spilled: the linears' inputs read from device memory (defer_layer), the other activations
            // loaded up front, or (passes in chunks of tokens, where SBUF is short) each by the block
            // that reads it, the FFN's a chunk at a time as the forward made them.
            std::optional<SpilledLayer> spilled;
            if (s_.spill) {
                spilled.emplace(ctx_, *s_.spill, l, in.first_row * s_.shape.seq);
                if (s_.chunk_tokens == 0) spilled->load_all(ctx_);
                defer_layer(l);
            }
            EncoderLayerSaved saved = spilled ? spilled->saved() : f.layers[l].saved();
            if (spilled) saved.chunk_tokens = s_.chunk_tokens;
            const EncoderLayerParameters params{w.query.backward, w.key.backward, w.value.backward,
                                                w.attention_output.backward, w.intermediate.backward, w.output.backward,
                                                w.attention_norm.gamma_row_fp32, w.output_norm.gamma_row_fp32,
                                                s_.layer_norm_eps, s_.attention.mask, in.dropout.layer(l)};
            encoder_layer_backward(ctx_, s_.shape, saved, params, dy[(l + 1) % 2], layer_sink,
                                   kFirstLayerParameter + kLayerParameters * l, dy[l % 2]);
        }
        ctx_.core.sbuf_rewind(mark);
        dropout_tokens(ctx_, dy[0], dy[0], in.dropout.hidden, in.dropout.embedding_key(), in.dropout.first_token);
        TileSet d_sum = tiles(count, hidden, mm, "d embedding sum");
        TileSet dgamma = sums.begin(kEmbeddingNormGamma, 0, 0, 1, hidden);
        TileSet dbeta = sums.begin(kEmbeddingNormGamma + 1, 0, 0, 1, hidden);
        layer_norm_backward(ctx_, f.embedding_sum, dy[0], model.embedding_norm.gamma_row_fp32, s_.layer_norm_eps,
                            {&d_sum, &dgamma, &dbeta});
        sums.end(kEmbeddingNormGamma, dgamma, 0, 0);
        sums.end(kEmbeddingNormGamma + 1, dbeta, 0, 0);
        if (s_.deferred) {
            const DramTensor& d = s_.d_embedding_sum;
            store_tiles(ctx_, *s_.channels, d_sum, {d.tensor, d.dtype, d.columns, in.first_row * s_.shape.seq, 0});
            s_.phases->end(kBackwardPhase);
            return;
        }
        TileSet positions = s_.position_ids;
        positions.rows = count;
        positions.tiles.resize((count + positions.tile_rows - 1) / positions.tile_rows);
        table_gradients(ids, types, positions, d_sum);
    }

    // `set`'s tiles holding `dtype` elements (no wider than its own), over its SBUF.
    TileSet alias_as(const TileSet& set, isa::DType dtype) {
        if (isa::size_in_bytes(dtype) > isa::size_in_bytes(set.dtype))
            throw std::logic_error("training step: an alias holds elements no wider than its buffer's");
        TileSet alias = set;
        alias.dtype = dtype;
        for (builder::Buffer& b : alias.tiles)
            b = ctx_.core.sbuf_alias(b, 0, uint64_t(set.columns) * isa::size_in_bytes(dtype));
        return alias;
    }

    // The encoder layer l's linears' inputs, where the forward spilled them (DeferredWeightGradients).
    void defer_layer(uint32_t l) {
        const uint32_t first = kFirstLayerParameter + kLayerParameters * l;
        const std::pair<uint32_t, TileSet LayerActivationTiles::*> inputs[] = {
            {kQueryWeight, &LayerActivationTiles::x}, {kKeyWeight, &LayerActivationTiles::x},
            {kValueWeight, &LayerActivationTiles::x}, {kAttentionOutputWeight, &LayerActivationTiles::context},
            {kIntermediateWeight, &LayerActivationTiles::attended}, {kOutputWeight, &LayerActivationTiles::intermediate}};
        for (const auto& [weight, x] : inputs) s_.deferred->set_input(first + weight, s_.spill->tensor(l, x));
    }

    // The word, position and token-type tables' gradients from the embedding sum's (rows of
    // `ids`, `positions`, `types`), a chunk of rows at a time, each into its sum.
    void table_gradients(const TileSet& ids, const TileSet& types, const TileSet& positions, const TileSet& d_sum) {
        const TrainedBert& model = s_.model;
        GradientSums& sums = *s_.sums;
        const uint32_t hidden = d_sum.columns, tile = d_sum.tile_rows;
        // Chunks of table_chunk_rows, or fewer where SBUF holds fewer beside embedding_backward's
        // one-hot block (the micro-batch's tokens at once, with a spill).
        const uint64_t used = ctx_.core.sbuf_used() + device::tile_set_bytes(ctx_.core, d_sum.rows, tile, d_sum.dtype) + 4096;
        const uint64_t total = ctx_.core.spec().sbuf.bytes_per_partition;
        const uint64_t fitting = total > used ? (total - used) / device::tile_set_bytes(ctx_.core, tile, hidden, kFp32) : 0;
        const uint32_t chunk_rows = std::min<uint64_t>(s_.table_chunk_rows, std::max<uint64_t>(1, fitting) * tile);
        const builder::Buffer table_room = ctx_.core.sbuf_region(
            device::tile_set_bytes(ctx_.core, chunk_rows, hidden, kFp32), "table gradient chunk");
        const uint64_t chunk_mark = ctx_.core.sbuf_mark();
        const std::pair<const TileSet*, const device::DramMatrix*> tables[kTables] = {
            {&ids, &model.tables.word}, {&positions, &model.tables.position}, {&types, &model.tables.token_type}};
        const bool first = sums.first();
        for (uint32_t i = 0; i < kTables; ++i) {
            // The masked-LM decoder (tied) has put the word table's first gradient in already.
            sums.set_first(first && !(i == 0 && model.masked_lm));
            const device::DramMatrix& table = *tables[i].second;
            for (uint32_t r = 0; r < table.rows; r += chunk_rows) {
                TileSet chunk = device::alias_tiles(ctx_.core, table_room, 0, std::min(chunk_rows, table.rows - r),
                                                    hidden, kFp32);
                ctx_.core.sbuf_rewind(chunk_mark);  // each chunk's one-hot block in the same SBUF
                embedding_backward(ctx_, *tables[i].first, d_sum, s_.index_row, chunk, r);
                s_.phases->end(kBackwardPhase);
                sums.add(chunk, i, r);
                s_.phases->end(kAccumulationPhase);
            }
        }
        sums.set_first(first);
    }

    // The masked-LM head's loss added to the next-sentence one, its gradients into the sums (its
    // parameters from `parameter` on), the encoder output's gradient from it added into dy.
    void masked_lm(const ForwardTiles& f, const ForwardInputs& forward, const Predictions& p, uint32_t parameter,
                   TileSet& loss, TileSet& dy) {
        const isa::DType mm = ctx_.dtypes.matmul;
        const MaskedLmTiles m = masked_lm_transform(ctx_, channel_, s_.model, forward, s_.attention, f.output, p.onehot);
        if (s_.deferred) {  // the decoder's (the word table's) gradients over every pass's predictions
            s_.deferred->store_pass_rows(ctx_, m.transformed, s_.mlm_transformed);
            s_.deferred->set_input(0, s_.mlm_transformed, s_.model.tables.word.rows);
        }
        MaskedLmHeadInputs in;
        in.forward = &m;
        in.head = &*s_.model.masked_lm;
        in.word_table = s_.model.tables.word;
        in.labels = &p.labels;
        in.weights = &p.weights;
        in.positions = &p.positions;
        in.class_row = load_broadcast_row(ctx_, channel_, s_.vocabulary_index, s_.vocabulary_chunk, "vocabulary index");
        in.index_row = s_.index_row;
        in.vocabulary_chunk = s_.vocabulary_chunk;
        in.layer_norm_eps = s_.layer_norm_eps;
        const MaskedLmParameters parameters{0, parameter, parameter + 1, parameter + 2, parameter + 3, parameter + 4};
        TileSet mlm_loss = tiles(1, 1, kFp32, "mlm loss");
        TileSet d_hidden = tiles(dy.rows, dy.columns, mm, "d hidden from mlm");
        GradientSink& sink = s_.deferred ? static_cast<GradientSink&>(*s_.deferred) : *s_.sums;
        masked_lm_head(ctx_, channel_, in, parameters, sink, mlm_loss, d_hidden);
        ctx_.core.tensor_tensor(isa::Engine::Dve, loss.view(0, 0, 1), loss.view(0, 0, 1), mlm_loss.view(0, 0, 1),
                                isa::AluOp::Add);
        for (uint32_t t = 0; t < dy.tiles.size(); ++t)
            ctx_.core.tensor_tensor(isa::Engine::Dve, dy.view(t, 0, dy.columns), dy.view(t, 0, dy.columns),
                                    d_hidden.view(t, 0, dy.columns), isa::AluOp::Add);
    }

    KernelContext& ctx_;
    builder::ProgramBuilder& program_;
    builder::DmaChannel& channel_;
    Shared& s_;
    uint32_t input_ids_ = 0, token_types_ = 0, mask_ = 0, labels_ = 0;
    uint32_t mlm_positions_ = 0, mlm_labels_ = 0, mlm_weights_ = 0;
};

}  // namespace

std::string gradient_tensor(const std::string& parameter) { return parameter + "/grad"; }
std::string m_tensor(const std::string& parameter) { return parameter + "/adam_m"; }
std::string v_tensor(const std::string& parameter) { return parameter + "/adam_v"; }

namespace {

void check_options(const BertConfig& c, const TrainingOptions& options) {
    if (c.hidden_act != HiddenActivation::GeluErf)
        throw std::invalid_argument("training step: only the erf GELU has a backward here");
    if (options.micro_batch == 0 || options.seq == 0 || options.grad_accum == 0)
        throw std::invalid_argument("training step: micro-batch, sequence length and accumulation steps must be positive");
    if (options.nodes == 0) throw std::invalid_argument("training step: it runs on at least one node");
    if (options.table_chunk_rows == 0) throw std::invalid_argument("training step: table chunks need rows");
    if (int64_t(options.seq) > c.max_position_embeddings)
        throw std::invalid_argument("training step: the sequence is longer than the position table");
    const uint32_t batch = options.pass_batch ? options.pass_batch : options.micro_batch;
    if (batch > options.micro_batch || options.micro_batch % batch != 0)
        throw std::invalid_argument("training step: the sequences of a pass must divide the micro-batch");
}

// A micro-step graph: what its micro-steps share (loaded at each execution), then one micro-step.
void build_micro_step(GraphCore& g, builder::ProgramBuilder& program, const TrainedBert& model, const BertConfig& c,
                      const TrainingOptions& options, std::vector<std::string>& phase_names, bool first) {
    KernelContext& ctx = g.ctx;
    builder::DmaChannel& channel = g.channel;
    const uint32_t batch = options.pass_batch ? options.pass_batch : options.micro_batch;
    const uint32_t seq = options.seq, count = batch * seq;
    const uint32_t num_labels = uint32_t(c.num_labels);
    PhaseMarks phases{ctx.core, phase_names};
    Shared s;
    s.phases = &phases;
    s.model = model;
    load_on_chip_rows(ctx, channel, s.model);
    s.shape = {batch, seq, uint32_t(c.num_attention_heads), uint32_t(c.head_size())};
    s.micro_batch = options.micro_batch;
    s.passes = options.micro_batch / batch;
    s.chunk_tokens = options.chunk_tokens;
    if (options.spill_activations)
        s.spill = std::make_unique<ActivationSpill>(program, *g.channels, options.micro_batch * options.seq);
    s.layer_norm_eps = float(c.layer_norm_eps);
    s.hidden_dropout = options.hidden_dropout;
    s.attention_dropout = options.attention_dropout;
    if (options.hidden_dropout > 0 || options.attention_dropout > 0)
        seed_dropout_generator(ctx, program, channel, options.dropout_seed);
    auto constant_column = [&](const std::string& name, const std::vector<float>& values) {
        const uint32_t n = uint32_t(values.size());
        const uint32_t tensor = program.add_tensor(name, isa::TensorRole::Weight, kFp32, {n, 1},
                                                   builder::encode_values(values, kFp32));
        TileSet set = device::allocate_tiles(ctx.core, n, 1, kFp32, name);
        load_tiles(ctx, channel, {tensor, kFp32, 1, 0, 0}, set);
        return set;
    };
    std::vector<float> positions(options.micro_batch * seq), cls_positions(batch);
    for (uint32_t t = 0; t < positions.size(); ++t) positions[t] = float(t % seq);
    for (uint32_t b = 0; b < batch; ++b) cls_positions[b] = float(b * seq);
    s.position_ids = constant_column("position ids/fp32", positions);
    s.cls_ids = constant_column("cls positions/fp32", cls_positions);
    if (s.model.masked_lm) {
        const uint32_t predictions = batch * options.max_predictions;
        s.max_predictions = options.max_predictions;
        s.vocabulary_chunk = std::min(options.vocabulary_chunk, uint32_t(c.vocab_size));
        std::vector<float> tokens(count), offsets(predictions);
        for (uint32_t t = 0; t < count; ++t) tokens[t] = float(t);
        for (uint32_t p = 0; p < predictions; ++p) offsets[p] = float(p / options.max_predictions * seq);
        s.token_index = constant_column("token index/fp32", tokens);
        s.prediction_offsets = constant_column("prediction offsets/fp32", offsets);
        s.prediction_offset_row = load_broadcast_row(
            ctx, channel,
            program.add_tensor("prediction offsets/row", isa::TensorRole::Weight, kFp32, {1, predictions},
                               builder::encode_values(offsets, kFp32)),
            predictions, "prediction offsets/row");
        s.vocabulary_index = add_index_row(program, "vocabulary index", s.vocabulary_chunk);
    }
    s.index_row = load_broadcast_row(ctx, channel, add_index_row(program, "row index", ctx.partitions()),
                                     ctx.partitions(), "row index");
    s.class_row = load_broadcast_row(ctx, channel, add_index_row(program, "class index", num_labels), num_labels,
                                     "class index");
    // With a spill, each pass allocates the softmax's ring in its forward (and gives it back after).
    if (options.spill_activations) s.attention.mask = device::allocate_attention_mask(ctx.core, s.shape);
    else s.attention = device::allocate_attention_scratch(ctx.core, s.shape, ctx.dtypes);
    s.staging = ctx.core.sbuf(uint64_t(count) * 4, "mask staging");
    s.loss_output = program.add_tensor(kLossOutput, isa::TensorRole::Output, kFp32, {1, 1});
    s.loss_sum = device::allocate_tiles(ctx.core, 1, 1, kFp32, "micro-step loss");
    s.table_chunk_rows = options.table_chunk_rows;
    s.sums = std::make_unique<GradientSums>(ctx, program, *g.channels, s.model.parameters, uint32_t(c.hidden_size));
    s.channels = g.channels.get();
    if (s.spill) {
        const uint32_t tokens = options.micro_batch * seq;
        s.deferred = std::make_unique<DeferredWeightGradients>(program, *g.channels, *s.sums);
        s.d_embedding_sum = {program.add_tensor(std::string(kSpilledActivationsPrefix) + "d embedding sum",
                                                isa::TensorRole::Scratch, ctx.dtypes.matmul, {tokens, uint32_t(c.hidden_size)}),
                             tokens, uint32_t(c.hidden_size), ctx.dtypes.matmul};
        if (s.model.masked_lm) {
            const uint32_t predictions = options.micro_batch * options.max_predictions;
            s.mlm_transformed = {program.add_tensor(std::string(kSpilledActivationsPrefix) + "mlm transformed",
                                                    isa::TensorRole::Scratch, ctx.dtypes.matmul,
                                                    {predictions, uint32_t(c.hidden_size)}),
                                 predictions, uint32_t(c.hidden_size), ctx.dtypes.matmul};
        }
    }
    MicroStep(ctx, program, channel, s).run(first);
}

}  // namespace

TrainingProgram training_step(builder::ProgramBuilder& program, const device::DtypePlan& dtypes,
                              uint32_t weight_slot_columns, const BertWeights& weights, const BertWeights& m,
                              const BertWeights& v, const TrainingOptions& options) {
    const BertConfig& c = weights.config;
    check_options(c, options);
    const TrainedBert model = add_trained_bert(program, dtypes, weights, m, v, options.optimizer_states);
    if (model.masked_lm) {
        if (options.max_predictions == 0 || options.max_predictions > options.seq)
            throw std::invalid_argument("training step: pretraining needs 1 to seq masked-LM predictions per sequence");
        if (options.vocabulary_chunk == 0) throw std::invalid_argument("training step: vocabulary chunks need columns");
    }
    TrainingProgram result;
    for (const auto& [graph, first] : {std::pair{kFirstMicroStepGraph, true}, std::pair{kMicroStepGraph, false}}) {
        if (!first && options.grad_accum == 1) break;
        program.begin_graph(graph);
        GraphCore g(program, dtypes, weight_slot_columns);
        build_micro_step(g, program, model, c, options, result.phase_marks, first);
    }

    const std::vector<uint32_t> gradients = GradientSums::add_tensors(program, model.parameters);
    if (options.nodes > 1)
        gradient_reduce_scatter_all_gather(program, gradients, options.cores, options.gradient_bucket_bytes,
                                           result.phase_marks);
    else if (options.cores > 1)
        gradient_all_reduce(program, gradients, options.cores, options.gradient_bucket_bytes, result.phase_marks);

    program.begin_graph(kOptimizerGraph);
    GraphCore g(program, dtypes, weight_slot_columns);
    const uint32_t scalars = program.add_tensor(kAdamWScalarsInput, isa::TensorRole::Input, kFp32, {1, kAdamWScalars});
    OptimizerStep step;
    step.parameters = model.parameters;
    step.gradients = gradients;
    step.states = options.optimizer_states;
    step.micro_steps = options.grad_accum * options.cores * options.nodes;  // the sums are every core's after the all-reduce
    step.max_grad_norm = options.max_grad_norm;
    step.constants = options.constants;
    step.scalars = load_broadcast_row(g.ctx, g.channel, scalars, kAdamWScalars, "adamw scalars");
    step.chunk_bytes = options.optimizer_chunk_bytes;
    step.channels = g.channels.get();
    if (options.max_grad_norm > 0)
        step.grad_norm_output = program.add_tensor(kGradNormOutput, isa::TensorRole::Output, kFp32, {1, 1});
    optimizer_step(g.ctx, g.channel, step);
    PhaseMarks{g.core, result.phase_marks}.end(kOptimizerPhase);
    for (const ParameterTensors& p : model.parameters) result.parameters.push_back(p.name);
    return result;
}

}  // namespace nsim::kernels::train
