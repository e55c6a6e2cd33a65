#include "builder/core_builder.h"

#include <algorithm>
#include <stdexcept>

#include "isa/validator.h"

namespace nsim::kernels::builder {
namespace {

using isa::Engine;
using isa::Instruction;
using isa::Opcode;

constexpr uint64_t kSbufAlignment = 64;  // keeps every buffer's start aligned for any element type

const char* engine_config_name(Engine engine) {
    switch (engine) {
        case Engine::Pe: return "tensor";
        case Engine::Act: return "scalar";
        case Engine::Dve: return "vector";
        case Engine::Pool: return "gpsimd";
        case Engine::Sp: return "sync";
        case Engine::Dma: return "dma";
    }
    return "";
}

Instruction make(Opcode opcode) {
    Instruction inst;
    inst.opcode = opcode;
    return inst;
}

}  // namespace

CoreBuilder::CoreBuilder(const config::NeuronCoreSpec& spec, uint32_t core, isa::Container& program)
    : spec_(spec), core_(core), program_(program) {}

bool CoreBuilder::has_engine(Engine engine) const {
    if (engine == Engine::Dma) return spec_.dma_engines > 0;
    for (const auto& e : spec_.engines)
        if (e.name == engine_config_name(engine)) return true;
    return false;
}

void CoreBuilder::check_engine(Engine engine, const char* what) const {
    if (!has_engine(engine))
        throw std::logic_error(std::string(what) + " on " + std::string(isa::name_of(engine)) + ", which " + spec_.name +
                               " does not have");
}

// ---- memory ----------------------------------------------------------------------------------------

Buffer CoreBuilder::sbuf(uint64_t bytes_per_partition, const std::string& what) {
    return allocate_sbuf(bytes_per_partition, what, true);
}

Buffer CoreBuilder::allocate_sbuf(uint64_t bytes_per_partition, const std::string& what, bool tracked) {
    const uint64_t start = (sbuf_top_ + kSbufAlignment - 1) / kSbufAlignment * kSbufAlignment;
    if (start + bytes_per_partition > spec_.sbuf.bytes_per_partition)
        throw std::length_error("SBUF is full: " + what + " needs " + std::to_string(bytes_per_partition) +
                                " more bytes per partition after " + std::to_string(start) + " of " +
                                std::to_string(spec_.sbuf.bytes_per_partition));
    Buffer b;
    b.id = uint32_t(buffers_.size());
    b.space = isa::MemorySpace::Sbuf;
    b.partitions = spec_.sbuf.partitions;
    b.offset = start;
    b.bytes = bytes_per_partition;
    add_buffer(b, tracked);
    sbuf_top_ = start + bytes_per_partition;
    return b;
}

uint64_t CoreBuilder::sbuf_mark() {
    allocate_join_scratch();
    return sbuf_top_;
}

void CoreBuilder::sbuf_rewind(uint64_t mark) {
    if (mark > sbuf_top_) throw std::logic_error("sbuf_rewind: beyond what is allocated");
    if (join_scratch_.id == UINT32_MAX || join_scratch_.offset >= mark)
        throw std::logic_error("sbuf_rewind: to a point not from sbuf_mark");
    sbuf_top_ = mark;
    states_.retire_from(isa::MemorySpace::Sbuf, mark);
}

void CoreBuilder::allocate_join_scratch() {
    if (join_scratch_.id != UINT32_MAX) return;
    join_scratch_ = allocate_sbuf(2 * 4, "join scratch", false);
}

Buffer CoreBuilder::sbuf_region(uint64_t bytes_per_partition, const std::string& what) {
    return allocate_sbuf(bytes_per_partition, what, false);  // only its aliases are tracked
}

// What a new buffer over live ones (aliases) and over given-back ones inherits: BufferStates.
void CoreBuilder::add_buffer(const Buffer& b, bool tracked) {
    buffers_.push_back(b);
    states_.add(b.id, b.space, b.offset, b.offset + b.bytes, tracked);
}

Buffer CoreBuilder::sbuf_alias(const Buffer& base, uint64_t offset, uint64_t bytes_per_partition) {
    if (base.space != isa::MemorySpace::Sbuf || offset + bytes_per_partition > base.bytes)
        throw std::logic_error("an alias must lie inside its SBUF base buffer");
    Buffer b = base;
    b.id = uint32_t(buffers_.size());
    b.offset = base.offset + offset;
    b.bytes = bytes_per_partition;
    add_buffer(b);
    return b;
}

Buffer CoreBuilder::psum(uint32_t bank, uint32_t first, uint32_t count) {
    // invalid_argument: a caller's mistake (Python: ValueError), said with what exists.
    if (bank >= spec_.psum.banks)
        throw std::invalid_argument("PSUM bank " + std::to_string(bank) + " does not exist: the core has " +
                                    std::to_string(spec_.psum.banks) + " banks (0-" + std::to_string(spec_.psum.banks - 1) + ")");
    if (count == 0 || first + count > kPsumGranules)
        throw std::invalid_argument("PSUM bank " + std::to_string(bank) + " granules " + std::to_string(first) + "+" +
                                    std::to_string(count) + " do not exist (a bank has " + std::to_string(kPsumGranules) +
                                    ")");
    if (psum_semaphores_.empty()) psum_semaphores_.assign(spec_.psum.banks, isa::kNoSemaphore);
    if (psum_semaphores_[bank] == isa::kNoSemaphore) psum_semaphores_[bank] = new_semaphore("psum_bank" + std::to_string(bank));
    const auto key = std::make_tuple(bank, first, count);
    auto it = psum_buffers_.find(key);
    if (it != psum_buffers_.end()) return it->second;
    const uint64_t granule = psum_bank_bytes() / kPsumGranules;
    Buffer b;
    b.id = uint32_t(buffers_.size());
    b.space = isa::MemorySpace::Psum;
    b.partitions = spec_.psum.partitions;
    b.offset = bank * psum_bank_bytes() + first * granule;
    b.bytes = count * granule;
    b.psum_bank = bank;
    add_buffer(b);
    psum_buffers_.emplace(key, b);
    return b;
}

// ---- synchronisation -----------------------------------------------------------------------------

uint16_t CoreBuilder::new_semaphore(const std::string& name) {
    if (signals_.size() >= spec_.semaphores)
        throw std::length_error("the schedule needs more than the " + std::to_string(spec_.semaphores) +
                                " semaphores of " + spec_.name + " (at " + name + ")");
    const uint16_t index = uint16_t(signals_.size());
    signals_.push_back(0);
    bool named = false;
    for (const auto& n : program_.semaphore_names) named |= n.index == index;
    if (!named) program_.semaphore_names.push_back({index, name});
    return index;
}

int32_t CoreBuilder::queue_index(Engine engine, uint8_t number) {
    const auto key = std::make_pair(engine, number);
    auto it = queue_index_.find(key);
    if (it != queue_index_.end()) return it->second;
    queues_.push_back(Queue{engine, number, {}, {}});
    if (rounding_) queues_.back().instructions.push_back(*rounding_);
    const int32_t index = int32_t(queues_.size() - 1);
    queue_index_.emplace(key, index);
    return index;
}

SyncSet CoreBuilder::dependencies(const std::vector<Use>& uses) const {
    SyncSet deps;
    for (const Use& use : uses) {
        if (use.view->buffer.id == UINT32_MAX) continue;  // DRAM / host: not tracked
        const bool partial_write = use.access == Access::Write && use.view->partial;
        for (const BufferState* read : states_.read(use.view->buffer.id)) {
            const BufferState& state = *read;
            // A write after reads waits for the readers; each of them waited for the writers (or ran
            // after them on their queue), so the writers need no wait of their own. Waiting for them
            // too would take two semaphores, which a DMA can only wait for through a join on a
            // compute engine: the load would then wait for that engine to reach it in program order
            // and could no longer run ahead of it (the weight ring would not prefetch).
            const bool after_reads = use.access == Access::Write && !state.readers.empty();
            if (!partial_write && !after_reads)
                for (const SyncPoint& p : state.writers) merge(deps, p);
            if (use.access != Access::Read)
                for (const SyncPoint& p : state.readers) merge_reader(deps, p);
            if (partial_write)
                for (const SyncPoint& p : state.before_writes) merge_reader(deps, p);
        }
    }
    return deps;
}

void CoreBuilder::record(const std::vector<Use>& uses, const SyncPoint& point) {
    for (const Use& use : uses) {
        if (use.access != Access::Read || use.view->buffer.id == UINT32_MAX) continue;
        if (use.view->buffer.space == isa::MemorySpace::Psum && point.queue != kManyQueues &&
            queues_[point.queue].engine == Engine::Pe)
            states_.read_every_buffer();  // a tensor-engine reader of PSUM: see BufferStates
        states_.update(use.view->buffer.id, [&](BufferState& state) { merge_reader(state.readers, point); });
    }
    for (const Use& use : uses) {
        if (use.access == Access::Read || use.view->buffer.id == UINT32_MAX) continue;
        const bool partial_write = use.access == Access::Write && use.view->partial;
        states_.update(use.view->buffer.id, [&](BufferState& state) {
            if (!state.readers.empty()) state.before_writes = state.readers;
            if (partial_write) {
                if (!state.readers.empty()) state.writers.clear();
                merge(state.writers, point);
            } else {
                state.writers.assign(1, point);
            }
            state.readers.clear();
        });
    }
}

void CoreBuilder::wait_then_push(int32_t queue, Instruction inst, const SyncSet& deps, uint16_t signal) {
    Queue& q = queues_[queue];
    std::vector<SyncPoint> waits;
    for (const SyncPoint& p : deps) {
        if (p.queue == queue) continue;  // same in-order queue
        auto it = q.passed.find(p.semaphore);
        if (it != q.passed.end() && it->second >= p.value) continue;
        waits.push_back(p);
    }
    for (size_t i = 0; i < waits.size(); ++i) {
        Instruction* target = &inst;
        Instruction nop = make(Opcode::Nop);
        if (i + 1 < waits.size()) target = &nop;
        target->sync.wait_semaphore = waits[i].semaphore;
        target->sync.wait_value = waits[i].value;
        q.passed[waits[i].semaphore] = waits[i].value;
        if (target == &nop) q.instructions.push_back(nop);
    }
    inst.sync.signal_semaphore = signal;
    q.instructions.push_back(inst);
}

void CoreBuilder::compute(Engine engine, const Instruction& inst, const std::vector<Use>& uses) {
    check_engine(engine, isa::info(inst.opcode).mnemonic.data());
    const int32_t queue = queue_index(engine, 0);
    uint16_t signal = isa::kNoSemaphore;
    if (engine == Engine::Pe) {
        for (const Use& use : uses)
            if (use.access != Access::Read && use.view->buffer.psum_bank != UINT32_MAX)
                signal = psum_semaphores_.at(use.view->buffer.psum_bank);
        if (signal == isa::kNoSemaphore) throw std::logic_error("a tensor-engine instruction must write a PSUM bank");
    } else {
        auto it = progress_.find(engine);
        if (it == progress_.end())
            it = progress_.emplace(engine, new_semaphore(std::string(isa::name_of(engine)) + "_progress")).first;
        signal = it->second;
    }
    const SyncSet deps = dependencies(uses);
    const SyncPoint point{signal, ++signals_[signal], queue, ++emitted_};
    wait_then_push(queue, inst, deps, signal);
    record(uses, point);
}

// ---- DMA ------------------------------------------------------------------------------------------

DmaChannel& CoreBuilder::dma_channel(const std::string& name, uint32_t queue_class, uint32_t width) {
    const uint32_t engines = spec_.dma_engines;
    if (width == 0 || width > engines) width = engines;
    if (queue_class >= spec_.dma_queues_per_engine)
        throw std::length_error("the schedule needs more than the " + std::to_string(spec_.dma_queues_per_engine) +
                                " DMA queues per engine of " + spec_.name);
    auto channel = std::make_unique<DmaChannel>();
    channel->owner_ = this;
    channel->name_ = name;
    channel->semaphore_ = new_semaphore(name);
    for (uint32_t e = 0; e < width; ++e) channel->queues_.push_back(uint8_t(queue_class * engines + e));
    channels_.push_back(std::move(channel));
    return *channels_.back();
}

std::vector<DmaPiece> CoreBuilder::split_rows(const View& dst, const View& src, uint32_t pieces) {
    const uint32_t rows = dst.ap.partition_count;
    if (src.ap.partition_count != rows) throw std::logic_error("a DMA's sides have different row counts");
    pieces = std::max<uint32_t>(1, std::min(pieces, rows));
    std::vector<DmaPiece> out;
    for (uint32_t i = 0; i < pieces; ++i) {
        const uint32_t begin = uint32_t(uint64_t(rows) * i / pieces), end = uint32_t(uint64_t(rows) * (i + 1) / pieces);
        if (begin == end) continue;
        DmaPiece piece{dst, src};
        for (View* side : {&piece.dst, &piece.src}) {
            isa::AccessPattern& ap = side->ap;
            if (isa::is_partitioned(ap.space))
                ap.partition_start += begin;
            else
                ap.offset += uint64_t(int64_t(begin) * ap.partition_stride) * isa::size_in_bytes(ap.dtype);
            ap.partition_count = end - begin;
        }
        out.push_back(piece);
    }
    return out;
}

SyncSet CoreBuilder::dma_dependencies(DmaChannel& channel, const std::vector<Use>& uses) {
    SyncSet deps = dependencies(uses);
    const SyncPoint previous{channel.semaphore_, channel.completed_target_, kManyQueues, 0};
    bool implied = channel.completed_target_ == 0;
    // Reusing a buffer the channel's previous transfer filled waits for its readers, who waited for
    // that transfer: the chain is implied.
    for (const Use& use : uses) {
        if (implied || use.access == Access::Read || use.view->buffer.id == UINT32_MAX) continue;
        for (const BufferState* s : states_.read(use.view->buffer.id))
            for (const SyncPoint& w : s->writers)
                implied |= !s->readers.empty() && w.semaphore == previous.semaphore && w.value == previous.value;
    }
    if (!implied) merge(deps, previous);
    if (deps.size() <= 1) return deps;
    return {join(deps)};
}

SyncPoint CoreBuilder::join(const SyncSet& deps) {
    Engine engine = Engine::Dve;
    uint64_t latest = 0;
    for (const SyncPoint& p : deps) {
        if (p.queue == kManyQueues || p.order < latest) continue;
        const Engine e = queues_[p.queue].engine;
        if (e == Engine::Act || e == Engine::Dve || e == Engine::Pool) engine = e, latest = p.order;
    }
    allocate_join_scratch();
    View dst = tile(join_scratch_, isa::DType::Fp32, 0, 1, 0, 1), src = tile(join_scratch_, isa::DType::Fp32, 0, 1, 1, 1);
    dst.buffer.id = src.buffer.id = UINT32_MAX;  // not a data dependency of anything
    Instruction marker = make(Opcode::TensorCopy);
    marker.set(isa::fields::TensorCopy::dst, dst.ap).set(isa::fields::TensorCopy::src, src.ap);
    auto it = progress_.find(engine);
    if (it == progress_.end())
        it = progress_.emplace(engine, new_semaphore(std::string(isa::name_of(engine)) + "_progress")).first;
    const int32_t queue = queue_index(engine, 0);
    const SyncPoint point{it->second, ++signals_[it->second], queue, ++emitted_};
    wait_then_push(queue, marker, deps, it->second);
    return point;
}

void CoreBuilder::dma(DmaChannel& channel, const std::vector<DmaPiece>& pieces) {
    check_engine(Engine::Dma, "dma_copy");
    std::vector<Use> all;
    std::vector<Instruction> copies;
    for (const DmaPiece& p : pieces) {
        all.push_back({&p.dst, Access::Write});
        all.push_back({&p.src, Access::Read});
        Instruction copy = make(Opcode::DmaCopy);
        copy.set(isa::fields::DmaCopy::dst, p.dst.ap);
        copy.set(isa::fields::DmaCopy::src, p.src.ap);
        copies.push_back(copy);
    }
    transfer(channel, copies, all);
}

void CoreBuilder::dma_gather(DmaChannel& channel, const std::vector<GatherPiece>& pieces) {
    check_engine(Engine::Dma, "dma_gather");
    std::vector<Use> all;
    std::vector<Instruction> gathers;
    for (const GatherPiece& p : pieces) {
        all.push_back({&p.dst, Access::Write});
        all.push_back({&p.table, Access::Read});
        all.push_back({&p.indices, Access::Read});
        Instruction gather = make(Opcode::DmaGather);
        gather.set(isa::fields::DmaGather::dst, p.dst.ap);
        gather.set(isa::fields::DmaGather::table, p.table.ap);
        gather.set(isa::fields::DmaGather::indices, p.indices.ap);
        gathers.push_back(gather);
    }
    transfer(channel, gathers, all);
}

void CoreBuilder::check_owned(const DmaChannel& channel) const {
    if (channel.owner_ != this)
        throw std::logic_error("DMA channel '" + channel.name_ + "' is another core's (make one on core " + std::to_string(core_) + ")");
}

void CoreBuilder::transfer(DmaChannel& channel, const std::vector<Instruction>& pieces, const std::vector<Use>& uses) {
    check_owned(channel);
    const uint16_t sem = channel.semaphore_;
    const SyncSet deps = dma_dependencies(channel, uses);
    for (const Instruction& piece : pieces) {
        const uint8_t number = channel.queues_[channel.next_queue_++ % channel.queues_.size()];
        ++signals_[sem];
        wait_then_push(queue_index(Engine::Dma, number), piece, deps, sem);
    }
    channel.completed_target_ = signals_[sem];
    record(uses, SyncPoint{sem, signals_[sem], kManyQueues, ++emitted_});
}

void CoreBuilder::point_to_point(DmaChannel& channel, Instruction inst, const std::vector<Use>& uses) {
    check_owned(channel);
    const SyncSet deps = dma_dependencies(channel, uses);
    const uint16_t sem = channel.semaphore_;
    ++signals_[sem];
    wait_then_push(queue_index(Engine::Dma, channel.queues_.front()), inst, deps, sem);
    channel.completed_target_ = signals_[sem];
    record(uses, SyncPoint{sem, signals_[sem], kManyQueues, ++emitted_});
}

void CoreBuilder::send(DmaChannel& channel, const View& src, uint32_t peer_core, uint32_t tag) {
    Instruction inst = make(Opcode::Send);
    inst.set(isa::fields::Send::src, src.ap);
    inst.set_u32(isa::fields::Send::peer_core, peer_core);
    inst.set_u32(isa::fields::Send::channel, tag);
    point_to_point(channel, inst, {{&src, Access::Read}});
}

void CoreBuilder::recv(DmaChannel& channel, const View& dst, uint32_t peer_core, uint32_t tag) {
    Instruction inst = make(Opcode::Recv);
    inst.set(isa::fields::Recv::dst, dst.ap);
    inst.set_u32(isa::fields::Recv::peer_core, peer_core);
    inst.set_u32(isa::fields::Recv::channel, tag);
    point_to_point(channel, inst, {{&dst, Access::Write}});
}

void CoreBuilder::all_reduce(DmaChannel& channel, const View& dst, const View& src, isa::ReduceOp op, uint32_t first_core,
                             uint32_t core_count) {
    namespace F = isa::fields::AllReduce;
    Instruction inst = make(Opcode::AllReduce);
    inst.set(F::dst, dst.ap).set(F::src, src.ap).set_enum(F::op, op);
    inst.set_u32(F::first_core, first_core).set_u32(F::core_count, core_count);
    point_to_point(channel, inst, {{&src, Access::Read}, {&dst, Access::Write}});
}

void CoreBuilder::reduce_scatter(DmaChannel& channel, const View& dst, const View& src, isa::ReduceOp op,
                                 uint32_t first_core, uint32_t core_count) {
    namespace F = isa::fields::ReduceScatter;
    Instruction inst = make(Opcode::ReduceScatter);
    inst.set(F::dst, dst.ap).set(F::src, src.ap).set_enum(F::op, op);
    inst.set_u32(F::first_core, first_core).set_u32(F::core_count, core_count);
    point_to_point(channel, inst, {{&src, Access::Read}, {&dst, Access::Write}});
}

void CoreBuilder::all_gather(DmaChannel& channel, const View& dst, const View& src, uint32_t first_core,
                             uint32_t core_count) {
    namespace F = isa::fields::AllGather;
    Instruction inst = make(Opcode::AllGather);
    inst.set(F::dst, dst.ap).set(F::src, src.ap);
    inst.set_u32(F::first_core, first_core).set_u32(F::core_count, core_count);
    point_to_point(channel, inst, {{&src, Access::Read}, {&dst, Access::Write}});
}

// ---- compute instructions ---------------------------------------------------------------------------

void CoreBuilder::matmul(const View& dst, const View& stationary, const View& moving, bool accumulate) {
    namespace F = isa::fields::Matmul;
    // Refused here, in the validator's words, rather than only when the finished program is run.
    if (const std::vector<std::string> problems = isa::matmul_shape_problems(dst.ap, stationary.ap, moving.ap); !problems.empty())
        throw std::invalid_argument("matmul: " + problems.front());
    Instruction inst = make(Opcode::Matmul);
    inst.set(F::dst, dst.ap).set(F::stationary, stationary.ap).set(F::moving, moving.ap);
    inst.set_enum(F::acc, accumulate ? isa::AccumulateMode::Accumulate : isa::AccumulateMode::Overwrite);
    compute(Engine::Pe, inst,
            {{&dst, accumulate ? Access::ReadWrite : Access::Write}, {&stationary, Access::Read}, {&moving, Access::Read}});
}

void CoreBuilder::pe_transpose(const View& dst, const View& src) {
    namespace F = isa::fields::Transpose;
    Instruction inst = make(Opcode::Transpose);
    inst.set(F::dst, dst.ap).set(F::src, src.ap);
    compute(Engine::Pe, inst, {{&dst, Access::Write}, {&src, Access::Read}});
}

void CoreBuilder::activation(const View& dst, const View& src, isa::ActivationFunction func, float scale,
                             const View* bias, isa::ReduceOp reduce, const View* reduce_dst) {
    namespace F = isa::fields::Activation;
    Instruction inst = make(Opcode::Activation);
    inst.set(F::dst, dst.ap).set(F::src, src.ap).set_enum(F::func, func).set_f32(F::scale, scale);
    inst.set_enum(F::reduce_op, reduce);
    std::vector<Use> uses{{&dst, Access::Write}, {&src, Access::Read}};
    if (bias) {
        inst.set(F::bias, bias->ap);
        uses.push_back({bias, Access::Read});
    }
    if (reduce_dst) {
        inst.set(F::reduce_dst, reduce_dst->ap);
        uses.push_back({reduce_dst, Access::Write});
    }
    compute(Engine::Act, inst, uses);
}

void CoreBuilder::tensor_tensor(Engine engine, const View& dst, const View& a, const View& b, isa::AluOp op) {
    namespace F = isa::fields::TensorTensor;
    Instruction inst = make(Opcode::TensorTensor);
    inst.set(F::dst, dst.ap).set(F::src0, a.ap).set(F::src1, b.ap).set_enum(F::op, op);
    compute(engine, inst, {{&dst, Access::Write}, {&a, Access::Read}, {&b, Access::Read}});
}

void CoreBuilder::tensor_scalar(Engine engine, const View& dst, const View& src, isa::AluOp op0, float imm0,
                                isa::AluOp op1, float imm1) {
    namespace F = isa::fields::TensorScalar;
    Instruction inst = make(Opcode::TensorScalar);
    inst.set(F::dst, dst.ap).set(F::src, src.ap).set_enum(F::op0, op0).set_f32(F::imm0, imm0);
    inst.set_enum(F::op1, op1).set_f32(F::imm1, imm1);
    compute(engine, inst, {{&dst, Access::Write}, {&src, Access::Read}});
}

void CoreBuilder::tensor_partition_scalar(Engine engine, const View& dst, const View& src, isa::AluOp op0,
                                          const View& scalar0, isa::AluOp op1, const View* scalar1) {
    namespace F = isa::fields::TensorPartitionScalar;
    Instruction inst = make(Opcode::TensorPartitionScalar);
    inst.set(F::dst, dst.ap).set(F::src, src.ap).set_enum(F::op0, op0).set(F::scalar0, scalar0.ap);
    inst.set_enum(F::op1, op1);
    std::vector<Use> uses{{&dst, Access::Write}, {&src, Access::Read}, {&scalar0, Access::Read}};
    if (scalar1) {
        inst.set(F::scalar1, scalar1->ap);
        uses.push_back({scalar1, Access::Read});
    }
    compute(engine, inst, uses);
}

void CoreBuilder::tensor_reduce(Engine engine, const View& dst, const View& src, isa::ReduceOp op) {
    namespace F = isa::fields::TensorReduce;
    Instruction inst = make(Opcode::TensorReduce);
    inst.set(F::dst, dst.ap).set(F::src, src.ap).set_enum(F::op, op);
    compute(engine, inst, {{&dst, Access::Write}, {&src, Access::Read}});
}

void CoreBuilder::bn_stats(const View& dst, const View& src) {
    Instruction inst = make(Opcode::BnStats);
    inst.set(isa::fields::BnStats::dst, dst.ap).set(isa::fields::BnStats::src, src.ap);
    compute(Engine::Dve, inst, {{&dst, Access::Write}, {&src, Access::Read}});
}

void CoreBuilder::bn_aggr(const View& dst, const View& src) {
    Instruction inst = make(Opcode::BnAggr);
    inst.set(isa::fields::BnAggr::dst, dst.ap).set(isa::fields::BnAggr::src, src.ap);
    compute(Engine::Dve, inst, {{&dst, Access::Write}, {&src, Access::Read}});
}

void CoreBuilder::tensor_copy(Engine engine, const View& dst, const View& src) {
    Instruction inst = make(Opcode::TensorCopy);
    inst.set(isa::fields::TensorCopy::dst, dst.ap).set(isa::fields::TensorCopy::src, src.ap);
    compute(engine, inst, {{&dst, Access::Write}, {&src, Access::Read}});
}

void CoreBuilder::memset(Engine engine, const View& dst, float value) {
    Instruction inst = make(Opcode::Memset);
    inst.set(isa::fields::Memset::dst, dst.ap).set_f32(isa::fields::Memset::value, value);
    compute(engine, inst, {{&dst, Access::Write}});
}

void CoreBuilder::set_rng_seed(const View& state) {
    Instruction inst = make(Opcode::SetRngSeed);
    inst.set(isa::fields::SetRngSeed::state, state.ap);
    compute(Engine::Dve, inst, {{&state, Access::Read}});
}

void CoreBuilder::dropout(const View& dst, const View& src, float probability, uint32_t key, uint32_t first_row) {
    namespace F = isa::fields::Dropout;
    Instruction inst = make(Opcode::Dropout);
    inst.set(F::dst, dst.ap).set(F::src, src.ap).set_f32(F::probability, probability);
    inst.set_u32(F::key, key).set_u32(F::first_row, first_row);
    compute(Engine::Dve, inst, {{&dst, Access::Write}, {&src, Access::Read}});
}

void CoreBuilder::set_stochastic_rounding(uint32_t seed) {
    if (!queues_.empty()) throw std::logic_error("set_stochastic_rounding after the core's first instruction");
    Instruction inst = make(Opcode::SetRounding);
    inst.set_u32(isa::fields::SetRounding::mode, 1);
    inst.set_u32(isa::fields::SetRounding::seed, seed);
    rounding_ = inst;
}

void CoreBuilder::mark(uint32_t label) {
    Instruction inst = make(Opcode::Mark);
    inst.set_u32(isa::fields::Mark::label, label);
    for (Queue& q : queues_) q.instructions.push_back(inst);
}

size_t CoreBuilder::queue_length(Engine engine, uint8_t queue) const {
    auto it = queue_index_.find(std::make_pair(engine, queue));
    return it == queue_index_.end() ? 0 : queues_[it->second].instructions.size();
}

void CoreBuilder::finish() {
    for (Queue& q : queues_) {
        if (q.instructions.empty()) continue;
        isa::InstructionStream s;
        s.core = core_;
        s.engine = q.engine;
        s.queue = q.number;
        s.instructions = std::move(q.instructions);
        // The cores of a data-parallel program run the same compute streams: hold each once.
        for (const isa::InstructionStream& earlier : program_.streams)
            if (earlier.engine == s.engine && earlier.queue == s.queue && earlier.instructions == s.instructions) {
                s.instructions = earlier.instructions;
                break;
            }
        program_.streams.push_back(std::move(s));
    }
    queues_.clear();
    queue_index_.clear();
}

}  // namespace nsim::kernels::builder
