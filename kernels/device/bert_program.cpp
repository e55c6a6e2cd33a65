#include "device/bert_program.h"

#include <algorithm>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "builder/program_builder.h"
#include "device/attention_kernel.h"
#include "device/embedding_kernel.h"
#include "device/kernel_context.h"
#include "device/layer_norm_kernel.h"
#include "device/linear_kernels.h"
#include "device/model_tensors.h"

namespace nsim::kernels::device {
namespace {

using builder::DmaChannel;
using builder::ProgramBuilder;

// DMA queue classes (one queue per DMA engine in each class); the weight ring's slots take the
// classes from kWeightClasses on, one each, so each slot's loads overlap the others' descriptor
// overheads.
enum QueueClass : uint32_t {
    kInputClass = 0,
    kColumnClass = 1,
    kNorm1Class = 2,
    kNorm2Class = 3,
    kOutputClass = 4,
    kPipelineClass = 5,
    kWeightClasses = 6,
};
// Weight slots: enough blocks in flight to cover the DMA fixed cost with transfers (hardware.md 3.1:
// ~1.3 us per DMA); more only costs SBUF.
constexpr uint32_t kWeightSlots = 10;
// A weight block's bytes per partition, when SBUF has room: DMABW (hardware.md 3.1) needs >= 2 KiB per
// partition and 4 KiB to saturate the DMA engines, which process a descriptor per partition row.
constexpr uint64_t kWeightRowBytes = 4096;
// Double buffering at least; SBUF that cannot hold two slots does not fit the model.
constexpr uint32_t kMinWeightSlots = 2;
// Alignment padding the SBUF allocator may add per buffer.
constexpr uint64_t kSbufSlack = 64;


struct IoTensors {
    uint32_t input_ids = 0, token_types = 0, attention_mask = 0, embeddings = 0, logits = 0, encoder_output = 0;
};

// One core's part of the program: which layers, which rows of the inputs.
struct CoreRole {
    uint32_t core = 0;
    uint32_t first_layer = 0, end_layer = 0;
    bool first_stage = true, last_stage = true;
    uint32_t first_row = 0;  // first sequence of the inputs this core reads and of the outputs it writes
};

class CoreProgram {
public:
    CoreProgram(ProgramBuilder& program, const BertProgramOptions& options, const IoTensors& io, const CoreRole& role,
                uint32_t pass_batch, std::vector<KernelPhase>* phases)
        : phases_(phases),
          core_(program.core(role.core)),
          options_(options),
          io_(io),
          role_(role),
          dtypes_(dtypes_for(options.precision)),
          hidden_(uint32_t(options.config.hidden_size)),
          batch_(pass_batch),
          tokens_(pass_batch * options.seq),
          tile_rows_(partition_tile_rows(program.spec())) {}

    // SBUF and PSUM for one pass of batch_ sequences, the weight ring last (throws std::length_error
    // when SBUF cannot hold them).
    void allocate() {
        const uint32_t inter = uint32_t(options_.config.intermediate_size);
        inputs_ = &core_.dma_channel("inputs", kInputClass);
        columns_channel_ = &core_.dma_channel("parameters", kColumnClass);
        norm1_channel_ = &core_.dma_channel("norm1_rows", kNorm1Class);
        norm2_channel_ = &core_.dma_channel("norm2_rows", kNorm2Class);
        outputs_ = &core_.dma_channel("outputs", kOutputClass);
        if (!(role_.first_stage && role_.last_stage)) pipeline_ = &core_.dma_channel("pipeline", kPipelineClass, 1);
        resid_ = allocate_tiles(core_, tokens_, hidden_, dtypes_.activation, "residual");
        feature_ = allocate_tiles(core_, hidden_, tokens_, dtypes_.matmul, "hidden^T");
        // Q^T, K^T, context^T and V live only between a layer's projections and its output
        // projection; the FFN's intermediate activations only after that: they share one region.
        const uint64_t h_bytes = tile_set_bytes(core_, hidden_, tokens_, dtypes_.matmul);
        const uint64_t attention_bytes = 3 * h_bytes + tile_set_bytes(core_, tokens_, hidden_, dtypes_.matmul);
        const uint64_t ffn_bytes = tile_set_bytes(core_, inter, tokens_, dtypes_.matmul);
        // Before the first layer of a pass the region also holds the attention mask's staging and,
        // with the embedding on the device, its rows: they are used up by then.
        const bool embeds = options_.embedding == EmbeddingPlacement::Device && role_.first_stage;
        const uint64_t staging_bytes = uint64_t(tokens_) * 4;
        const uint64_t embedding_bytes = staging_bytes + (embeds ? embedding_scratch_bytes(hidden_, dtypes_) : 0);
        const Buffer region =
            core_.sbuf_region(std::max({attention_bytes, ffn_bytes, embedding_bytes}), "attention / FFN activations");
        ffn_ = alias_tiles(core_, region, 0, inter, tokens_, dtypes_.matmul);
        q_ = alias_tiles(core_, region, 0, hidden_, tokens_, dtypes_.matmul);
        k_ = alias_tiles(core_, region, h_bytes, hidden_, tokens_, dtypes_.matmul);
        context_ = alias_tiles(core_, region, 2 * h_bytes, hidden_, tokens_, dtypes_.matmul);
        v_ = alias_tiles(core_, region, 3 * h_bytes, tokens_, hidden_, dtypes_.matmul);

        const uint32_t column_count =
            layer_columns(ceil_div(hidden_, tile_rows_), ceil_div(inter, tile_rows_)).count;
        for (Buffer& b : columns_) b = core_.sbuf(uint64_t(column_count) * 4, "layer parameter columns");
        const uint64_t row_bytes = uint64_t(hidden_) * isa::size_in_bytes(dtypes_.activation);
        norm1_ = {core_.sbuf(row_bytes, "norm1 gamma"), core_.sbuf(row_bytes, "norm1 beta+")};
        norm2_ = {core_.sbuf(row_bytes, "norm2 gamma"), core_.sbuf(row_bytes, "norm2 beta+")};
        layer_norm_ = allocate_layer_norm_scratch(core_, hidden_, dtypes_);
        attention_ = allocate_attention_scratch(core_, attention_shape(), dtypes_);
        mask_staging_ = core_.sbuf_alias(region, 0, staging_bytes);
        if (embeds) {
            embedding_ = alias_embedding_scratch(core_, region, staging_bytes, hidden_, dtypes_);
            embedding_columns_ = core_.sbuf(uint64_t(2) * ceil_div(hidden_, tile_rows_) * 4, "embedding columns");
        }
        if (role_.last_stage) {
            head_columns_ = core_.sbuf(uint64_t(ceil_div(hidden_, tile_rows_) + 1) * 4, "head columns");
            pooled_ = allocate_tiles(core_, hidden_, batch_, dtypes_.matmul, "pooled^T");
            logits_ = allocate_tiles(core_, uint32_t(options_.config.num_labels), batch_, isa::DType::Fp32,
                                     "logits^T");
        }
        // Last: the weight ring. Its slots are whole matmul widths (the wider of moving and stationary),
        // as many as fit up to kWeightRowBytes per partition while kWeightSlots of them fit in SBUF;
        // one width each when they do not, and then as many slots as there is room for.
        const uint32_t width = std::max(core_.spec().tensor.max_moving_free, core_.spec().tensor.max_stationary_free);
        const uint64_t width_bytes = uint64_t(width) * isa::size_in_bytes(dtypes_.matmul);
        const uint64_t room = core_.spec().sbuf.bytes_per_partition - std::min(core_.sbuf_used(), core_.spec().sbuf.bytes_per_partition);
        uint64_t widths = std::max<uint64_t>(1, kWeightRowBytes / width_bytes);
        while (widths > 1 && kWeightSlots * (widths * width_bytes + kSbufSlack) > room) --widths;
        const uint32_t slot_columns = uint32_t(widths * width);
        const uint64_t slot_bytes = widths * width_bytes + kSbufSlack;
        const uint32_t slots = uint32_t(std::min<uint64_t>({kWeightSlots, core_.spec().dma_queues_per_engine - kWeightClasses,
                                                            std::max<uint64_t>(kMinWeightSlots, room / slot_bytes)}));
        ring_ = std::make_unique<WeightRing>(core_, slots, slot_columns, dtypes_.matmul, kWeightClasses);
        psum_ = std::make_unique<PsumRing>(core_, 0, core_.psum_banks());
        ctx_ = std::make_unique<KernelContext>(KernelContext{core_, *ring_, *psum_, dtypes_});
    }

    // The weight blocks this core's kernels will load, as the column panels of the weights they read:
    // known from the ring and PSUM before the weights are written.
    void plan_panels(WeightPanels& panels) const {
        const uint32_t feature_major = feature_major_block_columns(*ctx_, tokens_);
        const uint32_t token_major = token_major_block_columns(*ctx_, tokens_);
        for (uint32_t l = role_.first_layer; l < role_.end_layer; ++l)
            panels.layers.at(l) = LayerPanels{feature_major, feature_major, token_major, token_major, feature_major, token_major};
        if (role_.last_stage) {
            panels.pooler = feature_major_block_columns(*ctx_, batch_);  // one token per sequence
            panels.classifier = panels.pooler;
        }
    }

    // SBUF holds one pass of batch_ sequences; the core's batch runs in passes one after another,
    // each reading its rows of the inputs from device memory and writing its rows of the outputs
    // there, and each streaming the weights again.
    void build(const ModelTensors& model) {
        model_ = &model;
        for (uint32_t row = 0; row < options_.batch; row += batch_) run_pass(role_.first_row + row);
    }

private:
    void run_pass(uint32_t first_row) {
        row_ = first_row;
        const uint32_t l0 = role_.first_layer;
        if (l0 < role_.end_layer) {
            load_columns(model_->layers[l0].columns, columns_[l0 % 2], model_->column_count);
            load_norm(model_->layers[l0].norm1_rows, norm1_);
        }
        AttentionShape shape = attention_shape();
        build_attention_mask(*ctx_, shape, io_.attention_mask, row_, *inputs_,
                             mask_staging_, attention_);
        if (role_.first_stage) {
            embed();
        } else {
            receive();
        }
        for (uint32_t l = l0; l < role_.end_layer; ++l) layer(l);
        if (role_.last_stage) {
            head();
        } else {
            send();
        }
    }

    struct NormRows {
        Buffer gamma, beta;
    };

    AttentionShape attention_shape() const {
        return {batch_, options_.seq, uint32_t(options_.config.num_attention_heads),
                uint32_t(options_.config.head_size())};
    }

    ColumnParams columns(uint32_t layer, uint32_t first) const { return ColumnParams{columns_[layer % 2], first}; }

    void load_columns(uint32_t tensor, const Buffer& dst, uint32_t count) {
        const View d = builder::tile(dst, isa::DType::Fp32, 0, tile_rows_, 0, count);
        const View s = builder::dram(builder::dram_rows(tensor, isa::DType::Fp32, count, 0, tile_rows_, 0, count));
        core_.dma(*columns_channel_, CoreBuilder::split_rows(d, s, uint32_t(columns_channel_->queues().size())));
    }

    // Rows 0 (gamma) and 1 (beta+) of a [2, hidden] tensor, broadcast over every partition.
    void load_norm(uint32_t tensor, const NormRows& dst, bool gamma = true) {
        DmaChannel& channel = dst.gamma.id == norm1_.gamma.id ? *norm1_channel_ : *norm2_channel_;
        std::vector<builder::DmaPiece> pieces;
        const uint32_t partitions = ctx_->partitions();
        for (uint32_t row = gamma ? 0 : 1; row < 2; ++row) {
            const View d = builder::tile(row == 0 ? dst.gamma : dst.beta, dtypes_.activation, 0, partitions, 0, hidden_);
            const View s = builder::dram(
                builder::dram_rows(tensor, dtypes_.activation, hidden_, row, partitions, 0, hidden_, 0));
            for (const auto& p : CoreBuilder::split_rows(d, s, uint32_t(channel.queues().size()))) pieces.push_back(p);
        }
        core_.dma(channel, pieces);
    }

    void embed() {
        const uint32_t hidden_tiles = ceil_div(hidden_, tile_rows_);
        LayerNormParams p;
        p.eps = float(options_.config.layer_norm_eps);
        p.beta_plus_row = norm2_.beta;
        if (model_->device_embedding) {
            load_norm(model_->embedding_rows, norm2_);
            load_columns(model_->embedding_columns, embedding_columns_, 2 * hidden_tiles);
            device_embedding(*ctx_, model_->tables, io_.input_ids, io_.token_types, row_, batch_,
                             options_.seq, *inputs_, *embedding_, resid_);
            p.gamma_row = norm2_.gamma;
            p.gamma_column = ColumnParams{embedding_columns_, 0};
            p.beta_column = ColumnParams{embedding_columns_, hidden_tiles};
        } else {
            load_norm(model_->embedding_rows, norm2_, false);
            load_host_embeddings(*ctx_, io_.embeddings, row_ * options_.seq, *inputs_, resid_);
            p.normalize = false;
        }
        layer_norm(*ctx_, resid_, feature_, layer_norm_, p);
        if (role_.first_layer < role_.end_layer) load_norm(model_->layers[role_.first_layer].norm2_rows, norm2_);
    }

    void layer(uint32_t l) {
        const LayerTensors& t = model_->layers[l];
        const LayerColumns c = layer_columns(ceil_div(hidden_, tile_rows_), ceil_div(uint32_t(options_.config.intermediate_size), tile_rows_));
        if (l + 1 < role_.end_layer) load_columns(model_->layers[l + 1].columns, columns_[(l + 1) % 2], model_->column_count);
        if (l == role_.first_layer && !role_.first_stage) load_norm(t.norm2_rows, norm2_);

        phase("query", l, true, [&] {
            feature_major_linear(*ctx_, feature_, t.query, columns(l, c.query_bias), isa::ActivationFunction::Identity, q_);
        });
        phase("key", l, true, [&] {
            feature_major_linear(*ctx_, feature_, t.key, columns(l, c.key_bias), isa::ActivationFunction::Identity, k_);
        });
        phase("value", l, true, [&] { token_major_linear(*ctx_, feature_, t.value, v_, TokenEpilogue::Store); });
        phase("attention", l, false, [&] {
            self_attention(*ctx_, attention_shape(), q_, k_, v_, columns(l, c.value_bias), context_, attention_);
        });
        phase("attention_output", l, true,
              [&] { token_major_linear(*ctx_, context_, t.attention_output, resid_, TokenEpilogue::AddInto); });
        LayerNormParams n1;
        n1.eps = float(options_.config.layer_norm_eps);
        n1.gamma_row = norm1_.gamma;
        n1.beta_plus_row = norm1_.beta;
        n1.gamma_column = columns(l, c.gamma1);
        n1.beta_column = columns(l, c.beta1);
        phase("layer_norm1", l, false, [&] { layer_norm(*ctx_, resid_, feature_, layer_norm_, n1); });
        if (l + 1 < role_.end_layer) load_norm(model_->layers[l + 1].norm1_rows, norm1_);

        const isa::ActivationFunction act = options_.config.hidden_act == HiddenActivation::GeluTanh
                                                ? isa::ActivationFunction::GeluTanh
                                                : options_.config.hidden_act == HiddenActivation::Relu
                                                      ? isa::ActivationFunction::Relu
                                                      : isa::ActivationFunction::Gelu;
        phase("intermediate", l, true,
              [&] { feature_major_linear(*ctx_, feature_, t.intermediate, columns(l, c.intermediate_bias), act, ffn_); });
        phase("output", l, true, [&] { token_major_linear(*ctx_, ffn_, t.output, resid_, TokenEpilogue::AddInto); });
        LayerNormParams n2 = n1;
        n2.gamma_row = norm2_.gamma;
        n2.beta_plus_row = norm2_.beta;
        n2.gamma_column = columns(l, c.gamma2);
        n2.beta_column = columns(l, c.beta2);
        phase("layer_norm2", l, false, [&] { layer_norm(*ctx_, resid_, feature_, layer_norm_, n2); });
        if (l + 1 < role_.end_layer) load_norm(model_->layers[l + 1].norm2_rows, norm2_);
    }

    void head() {
        const uint32_t hidden_tiles = ceil_div(hidden_, tile_rows_);
        load_columns(model_->head_columns, head_columns_, hidden_tiles + 1);
        feature_major_linear(*ctx_, feature_, model_->pooler, ColumnParams{head_columns_, 0}, isa::ActivationFunction::Tanh,
                             pooled_, Range{0, batch_}, options_.seq);
        feature_major_linear(*ctx_, pooled_, model_->classifier, ColumnParams{head_columns_, hidden_tiles},
                             isa::ActivationFunction::Identity, logits_);
        const uint32_t labels = uint32_t(options_.config.num_labels);
        isa::AccessPattern out;
        out.space = isa::MemorySpace::Dram;
        out.dtype = isa::DType::Fp32;
        out.tensor = io_.logits;
        out.partition_count = labels;
        out.partition_stride = 1;
        out.offset = uint64_t(row_) * labels * 4;
        out.dim_count = 1;
        out.dims[0] = {int32_t(labels), batch_};
        core_.dma(*outputs_, CoreBuilder::split_rows(builder::dram(out), logits_.view(0, 0, batch_), 1));
        std::vector<builder::DmaPiece> pieces;
        for (uint32_t j = 0; j < resid_.tiles.size(); ++j) {
            const uint32_t rows = resid_.rows_of(j);
            const View dst = builder::dram(builder::dram_rows(io_.encoder_output, isa::DType::Fp32, hidden_,
                                                              uint64_t(row_) * options_.seq + j * tile_rows_,
                                                              rows, 0, hidden_));
            for (const auto& p : CoreBuilder::split_rows(dst, resid_.view(j, 0, hidden_),
                                                         uint32_t(outputs_->queues().size())))
                pieces.push_back(p);
        }
        core_.dma(*outputs_, pieces);
    }

    // Pipeline: the residual stream in both layouts goes to the next core; tags number the transfers.
    void send() {
        uint32_t tag = 0;
        for (uint32_t j = 0; j < resid_.tiles.size(); ++j) core_.send(*pipeline_, resid_.view(j, 0, hidden_), role_.core + 1, tag++);
        for (uint32_t i = 0; i < feature_.tiles.size(); ++i)
            core_.send(*pipeline_, feature_.view(i, 0, tokens_), role_.core + 1, tag++);
    }

    void receive() {
        uint32_t tag = 0;
        for (uint32_t j = 0; j < resid_.tiles.size(); ++j) core_.recv(*pipeline_, resid_.view(j, 0, hidden_), role_.core - 1, tag++);
        for (uint32_t i = 0; i < feature_.tiles.size(); ++i)
            core_.recv(*pipeline_, feature_.view(i, 0, tokens_), role_.core - 1, tag++);
    }

    // Runs `body` (one kernel) and records where its tensor-engine instructions went.
    template <class Body>
    void phase(const char* kernel, uint32_t layer, bool dense, Body&& body) {
        const size_t first = core_.queue_length(isa::Engine::Pe);
        body();
        if (phases_) phases_->push_back({role_.core, kernel, layer, first, core_.queue_length(isa::Engine::Pe), dense});
    }

    std::vector<KernelPhase>* phases_;
    CoreBuilder& core_;
    const BertProgramOptions& options_;
    const ModelTensors* model_ = nullptr;  // set by build()
    const IoTensors& io_;
    CoreRole role_;
    DtypePlan dtypes_;
    uint32_t hidden_, batch_, tokens_, tile_rows_;
    uint32_t row_ = 0;  // the first sequence of the pass being built

    DmaChannel *inputs_ = nullptr, *columns_channel_ = nullptr, *norm1_channel_ = nullptr, *norm2_channel_ = nullptr,
               *outputs_ = nullptr, *pipeline_ = nullptr;
    std::unique_ptr<WeightRing> ring_;
    std::unique_ptr<PsumRing> psum_;
    std::unique_ptr<KernelContext> ctx_;
    TileSet resid_, feature_, ffn_, q_, k_, context_, v_, pooled_, logits_;
    Buffer columns_[2], head_columns_, embedding_columns_, mask_staging_;
    NormRows norm1_, norm2_;
    LayerNormScratch layer_norm_;
    AttentionScratch attention_;
    std::optional<EmbeddingScratch> embedding_;
};

void check_options(const config::NeuronCoreSpec& spec, const BertProgramOptions& o) {
    const BertConfig& c = o.config;
    const uint32_t tile_rows = partition_tile_rows(spec);
    if (o.seq == 0 || o.batch == 0 || o.cores == 0) throw BuildError("seq, batch and cores must be at least 1");
    if (o.seq > uint64_t(c.max_position_embeddings))
        throw BuildError("seq " + std::to_string(o.seq) + " exceeds the model's max_position_embeddings " +
                         std::to_string(c.max_position_embeddings));
    const uint32_t widest = widest_attention_row(spec);
    if (o.seq > widest)
        throw BuildError("seq " + std::to_string(o.seq) + " exceeds the " + std::to_string(widest) +
                         " keys one attention matmul of " + spec.name + " takes");
    const int64_t hs = c.head_size();
    if (hs <= 0 || c.hidden_size % c.num_attention_heads != 0 || tile_rows % hs != 0)
        throw BuildError("head size " + std::to_string(hs) + " (hidden_size / num_attention_heads) must divide " +
                         std::to_string(tile_rows) + ", the partition tile of " + spec.name);
    if (c.num_labels > int64_t(tile_rows))
        throw BuildError("num_labels " + std::to_string(c.num_labels) + " exceeds " + std::to_string(tile_rows));
    if (o.parallel == Parallelism::Pipeline && o.cores > uint64_t(c.num_hidden_layers))
        throw BuildError("pipeline over " + std::to_string(o.cores) + " cores needs at least as many layers, the model has " +
                         std::to_string(c.num_hidden_layers));
}

}  // namespace

uint32_t total_sequences(const BertProgramOptions& options) {
    return options.parallel == Parallelism::Data ? options.batch * options.cores : options.batch;
}

namespace {

// SBUF cannot hold one pass of the given size (CoreBuilder's "SBUF is full" as a std::length_error).
struct PassDoesNotFit {
    std::string message;
};

isa::Container build_in_passes(const config::NeuronCoreSpec& spec, const BertProgramOptions& options,
                               const BertWeights* weights, uint32_t pass_batch, std::vector<KernelPhase>* phases) {
    const BertConfig& config = options.config;
    const DtypePlan dtypes = dtypes_for(options.precision);
    const bool device_embedding = options.embedding == EmbeddingPlacement::Device;
    if (weights && device_embedding && !weights->embeddings)
        throw BuildError("--embedding device needs embedding tables, the weights have none");
    ProgramBuilder program(spec, options.cores);
    const uint32_t rows = total_sequences(options), seq = options.seq, hidden = uint32_t(config.hidden_size);

    IoTensors io;
    std::string inputs;
    if (device_embedding) {
        io.input_ids = program.add_tensor(kInputIds, isa::TensorRole::Input, isa::DType::Int32, {rows, seq});
        io.token_types = program.add_tensor(kTokenTypeIds, isa::TensorRole::Input, isa::DType::Int32, {rows, seq});
        inputs = std::string(kInputIds) + "," + kTokenTypeIds + "," + kAttentionMask;
    } else {
        io.embeddings = program.add_tensor(kEmbeddings, isa::TensorRole::Input, isa::DType::Fp32, {uint64_t(rows) * seq, hidden});
        inputs = std::string(kEmbeddings) + "," + kAttentionMask;
    }
    io.attention_mask = program.add_tensor(kAttentionMask, isa::TensorRole::Input, isa::DType::Int32, {rows, seq});
    io.logits = program.add_tensor(kLogits, isa::TensorRole::Output, isa::DType::Fp32, {rows, uint64_t(config.num_labels)});
    io.encoder_output =
        program.add_tensor(kEncoderOutput, isa::TensorRole::Output, isa::DType::Fp32, {uint64_t(rows) * seq, hidden});
    // Every core's SBUF first, so its kernels' weight blocks are known when the weights are written.
    const uint32_t layers = uint32_t(config.num_hidden_layers);
    std::vector<std::unique_ptr<CoreProgram>> cores;
    WeightPanels panels;
    panels.layers.resize(layers);
    for (uint32_t c = 0; c < options.cores; ++c) {
        CoreRole role;
        role.core = c;
        if (options.parallel == Parallelism::Data) {
            role.end_layer = layers;
            role.first_row = c * options.batch;
        } else {
            role.first_layer = layers * c / options.cores;
            role.end_layer = layers * (c + 1) / options.cores;
            role.first_stage = c == 0;
            role.last_stage = c + 1 == options.cores;
        }
        cores.push_back(std::make_unique<CoreProgram>(program, options, io, role, pass_batch, phases));
        try {
            cores.back()->allocate();
        } catch (const std::length_error& e) {
            throw PassDoesNotFit{e.what()};
        }
        cores.back()->plan_panels(panels);
    }
    const ModelTensors model = add_model_tensors(program, config, dtypes, device_embedding, weights, panels);

    if (options.device_memory_bytes && program.device_bytes() > options.device_memory_bytes)
        throw BuildError(options.model_name + " with batch " + std::to_string(options.batch) + " and seq " +
                         std::to_string(seq) + " needs " + std::to_string(program.device_bytes()) +
                         " bytes of device memory, the device region holds " + std::to_string(options.device_memory_bytes));

    for (uint32_t c = 0; c < options.cores; ++c) {
        try {
            cores[c]->build(model);
            program.core(c).finish();  // shares the streams an earlier core already has
        } catch (const std::length_error& e) {
            throw PassDoesNotFit{e.what()};
        }
    }
    program.set_metadata("sequences_per_pass", std::to_string(pass_batch));

    program.set_metadata("model", options.model_name);
    program.set_metadata("batch", std::to_string(options.batch));
    program.set_metadata("seq_len", std::to_string(seq));
    program.set_metadata("dtype", std::string(name_of(options.precision)));
    program.set_metadata("embedding", device_embedding ? "device" : "host");
    program.set_metadata("parallel", options.parallel == Parallelism::Data ? "data" : "pipeline");
    program.set_metadata("cores", std::to_string(options.cores));
    program.set_metadata("sequences_per_execution", std::to_string(rows));
    program.set_metadata("layers", std::to_string(layers));
    program.set_metadata("hidden_size", std::to_string(hidden));
    program.set_metadata("num_labels", std::to_string(config.num_labels));
    std::string labels;
    for (const std::string& l : config.label_names) labels += (labels.empty() ? "" : ",") + l;
    if (!labels.empty()) program.set_metadata("labels", labels);
    program.set_metadata("inputs", inputs);
    program.set_metadata("outputs", std::string(kLogits) + "," + kEncoderOutput);
    program.set_metadata("weights", weights ? "included" : "none (timing only)");
    // What a run from token ids needs to know of the model: ids must index its table, and the host
    // normalises its own embedding output.
    program.set_metadata("vocab_size", std::to_string(config.vocab_size));
    program.set_metadata("layer_norm_eps", fmt::format("{}", config.layer_norm_eps));
    return program.finish();
}

}  // namespace

// The whole batch in one pass when SBUF holds its activations; otherwise the largest divisor of the
// batch whose pass fits (activations of the other sequences wait in device memory: the inputs and
// outputs). A refusal is left only when one sequence does not fit.
isa::Container build_bert_program(const config::NeuronCoreSpec& spec, const BertProgramOptions& options,
                                  const BertWeights* weights, std::vector<KernelPhase>* phases) {
    check_options(spec, options);
    const size_t phases_before = phases ? phases->size() : 0;
    const uint32_t largest = options.max_pass_batch ? std::min(options.batch, options.max_pass_batch) : options.batch;
    for (uint32_t pass_batch = largest;; --pass_batch) {
        if (options.batch % pass_batch != 0) continue;
        try {
            return build_in_passes(spec, options, weights, pass_batch, phases);
        } catch (const PassDoesNotFit& e) {
            if (phases) phases->resize(phases_before);
            if (pass_batch == 1)
                throw BuildError(options.model_name + " with seq " + std::to_string(options.seq) +
                                 " does not fit one " + spec.name + " even one sequence at a time: " + e.message);
        }
    }
}

}  // namespace nsim::kernels::device
