// Writes the instruction streams of one program core, deriving the semaphores from what each
// instruction reads and writes.
//
// Kernels emit instructions in one global order that is a valid sequential execution of the program
// (every value is produced before it is used). Each instruction names the on-chip buffers it reads
// and writes; the builder then adds the waits that keep that order's meaning while the engine queues
// run concurrently:
//   read after write, write after read and write after write on a buffer -> wait for the other
//   instruction's signal, unless it is on the same in-order queue.
// Signals (chosen by hand, per the engines' ordering guarantees in sim/core):
//   - ACT, DVE, POOL: every instruction increments its engine's progress semaphore. Their results
//     become visible a fixed latency after they finish, in order, so "progress >= n" means "the
//     n-th instruction and every one before it are done".
//   - PE: every instruction increments the semaphore of the PSUM bank it writes. Matmul latencies
//     depend on shapes, so one PE-wide counter could be reached out of order; within a bank the
//     accumulation groups are ordered by their evacuation.
//   - DMA: transfers belong to a channel (its own semaphore and DMA queues, chosen by the kernel);
//     a transfer's pieces run on several queues at once, so waiters wait for whole transfers, and a
//     transfer's pieces first wait for the channel's previous transfer to be complete, which keeps
//     the channel's count meaningful.
// An instruction has one wait; further dependencies become nops in front of it on its queue, and
// waits a queue has already passed are not repeated.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "builder/buffer_states.h"
#include "builder/on_chip_view.h"
#include "config/host_spec.h"
#include "isa/container.h"

namespace nsim::kernels::builder {

class CoreBuilder;

// A kernel-chosen group of DMA queues with one semaphore; see the header comment.
class DmaChannel {
public:
    const std::string& name() const { return name_; }
    const std::vector<uint8_t>& queues() const { return queues_; }

private:
    friend class CoreBuilder;
    const CoreBuilder* owner_ = nullptr;   // its semaphore and queues are this core's
    std::string name_;
    uint16_t semaphore_ = 0;
    std::vector<uint8_t> queues_;
    size_t next_queue_ = 0;
    uint32_t completed_target_ = 0;  // semaphore value when the channel's last transfer is complete
};

// One element move of a DMA transfer.
struct DmaPiece {
    View dst, src;
};

// One indirect move (dma_gather): dst row r = table row indices[r].
struct GatherPiece {
    View dst, table, indices;
};

class CoreBuilder {
public:
    CoreBuilder(const config::NeuronCoreSpec& spec, uint32_t core, isa::Container& program);

    const config::NeuronCoreSpec& spec() const { return spec_; }
    uint32_t core() const { return core_; }
    bool has_engine(isa::Engine engine) const;

    // ---- on-chip memory: allocated once for the whole program, never freed --------------------
    Buffer sbuf(uint64_t bytes_per_partition, const std::string& what);
    // Room that is only ever used through aliases (sbuf_alias); not itself tracked.
    Buffer sbuf_region(uint64_t bytes_per_partition, const std::string& what);
    // A buffer over part of an earlier one (its bytes are reused for something else); `base` must
    // contain it. Hazards between the two are tracked.
    Buffer sbuf_alias(const Buffer& base, uint64_t offset, uint64_t bytes_per_partition);
    uint64_t sbuf_used() const { return sbuf_top_; }
    // A point to rewind to: sbuf_rewind(mark) gives back every byte allocated after it, and later
    // buffers reuse them (one micro-step of a training program after another). The buffers that held
    // them must not be used again; hazards between them and the new ones are tracked as for aliases
    // (they overlap). The builder's own scratch (joins) is allocated before the mark, so it survives.
    uint64_t sbuf_mark();
    void sbuf_rewind(uint64_t mark);
    uint32_t psum_banks() const { return spec_.psum.banks; }
    uint64_t psum_bank_bytes() const { return spec_.psum.bytes_per_partition / spec_.psum.banks; }
    // Granules [first, first + count) of PSUM bank `bank` as one buffer (kPsumGranules per bank; a
    // bookkeeping unit, so that tiles packed into one bank are tracked separately). Instructions of
    // the tensor engine writing a bank must have equal latencies until the bank is evacuated
    // (same shape), because they all count on the bank's semaphore.
    static constexpr uint32_t kPsumGranules = 4;
    Buffer psum(uint32_t bank, uint32_t first = 0, uint32_t count = kPsumGranules);

    // ---- DMA ------------------------------------------------------------------------------------
    // A channel on queue class `queue_class` (one queue per DMA engine of the core in that class,
    // `width` of them; 0 = every engine).
    DmaChannel& dma_channel(const std::string& name, uint32_t queue_class, uint32_t width = 0);
    // One transfer: its pieces run on the channel's queues round robin; buffers written count as
    // written (read: as read) once every piece is complete.
    void dma(DmaChannel& channel, const std::vector<DmaPiece>& pieces);
    // One transfer of gathered rows, its pieces on the channel's queues as dma() spreads them.
    void dma_gather(DmaChannel& channel, const std::vector<GatherPiece>& pieces);
    // A dst/src pair split into up to `pieces` transfers of whole partitions (rows for DRAM).
    static std::vector<DmaPiece> split_rows(const View& dst, const View& src, uint32_t pieces);
    // Point to point with another program core (pipeline parallelism), on the channel's first queue.
    void send(DmaChannel& channel, const View& src, uint32_t peer_core, uint32_t tag);
    void recv(DmaChannel& channel, const View& dst, uint32_t peer_core, uint32_t tag);
    // An all_reduce of src into dst (they may be the same) over program cores first_core ..
    // first_core + core_count - 1, every one of which issues it, on the channel's first queue (a
    // core's collectives meet the others' in the order it issues them).
    void all_reduce(DmaChannel& channel, const View& dst, const View& src, isa::ReduceOp op, uint32_t first_core,
                    uint32_t core_count);
    // The same for reduce_scatter (core i's dst gets the i-th of core_count equal parts of the
    // reduction) and all_gather (every dst gets the cores' srcs one after another).
    void reduce_scatter(DmaChannel& channel, const View& dst, const View& src, isa::ReduceOp op, uint32_t first_core,
                        uint32_t core_count);
    void all_gather(DmaChannel& channel, const View& dst, const View& src, uint32_t first_core, uint32_t core_count);

    // ---- compute ------------------------------------------------------------------------------
    void matmul(const View& dst, const View& stationary, const View& moving, bool accumulate);
    void pe_transpose(const View& dst, const View& src);
    void activation(const View& dst, const View& src, isa::ActivationFunction func, float scale = 1.0f,
                    const View* bias = nullptr, isa::ReduceOp reduce = isa::ReduceOp::None,
                    const View* reduce_dst = nullptr);
    void tensor_tensor(isa::Engine engine, const View& dst, const View& a, const View& b, isa::AluOp op);
    void tensor_scalar(isa::Engine engine, const View& dst, const View& src, isa::AluOp op0, float imm0,
                       isa::AluOp op1 = isa::AluOp::Bypass, float imm1 = 0.0f);
    void tensor_partition_scalar(isa::Engine engine, const View& dst, const View& src, isa::AluOp op0,
                                 const View& scalar0, isa::AluOp op1 = isa::AluOp::Bypass,
                                 const View* scalar1 = nullptr);
    void tensor_reduce(isa::Engine engine, const View& dst, const View& src, isa::ReduceOp op);
    void bn_stats(const View& dst, const View& src);
    void bn_aggr(const View& dst, const View& src);
    void tensor_copy(isa::Engine engine, const View& dst, const View& src);
    void memset(isa::Engine engine, const View& dst, float value);
    // Dropout on the vector engine (opcodes.def): set_rng_seed makes its generator draw from `state`
    // (two int32: seed, execution); dropout's dst = src * keep / (1 - probability), each element's
    // keep drawn from (key, first_row + its row, its free index), so the same call on a gradient
    // applies the same mask.
    void set_rng_seed(const View& state);
    void dropout(const View& dst, const View& src, float probability, uint32_t key, uint32_t first_row);

    // ---- rounding -----------------------------------------------------------------------------
    // Stochastic rounding of every fp32 -> bf16/fp16/fp8 write of this core with `seed` (training.md
    // A2.4): a set_rounding at the head of every queue the core uses, so that no write of any engine
    // comes before it. Call before the first instruction (std::logic_error otherwise).
    void set_stochastic_rounding(uint32_t seed);

    // A mark labelled `label` (opcodes.def) at the end of every queue the core has so far: the
    // simulator records when each queue reaches it, and the program has passed that point when the
    // last one has (RunStatistics::marks). It waits for nothing and costs nothing, so it does not
    // change the schedule it measures. Queues the core opens later do not have it.
    void mark(uint32_t label);

    // Instructions the queue holds so far: the index the next one will get (to mark kernel phases).
    size_t queue_length(isa::Engine engine, uint8_t queue = 0) const;

    // Moves the streams into the program; a stream equal to an earlier core's shares its instructions.
    // Called by ProgramBuilder::finish, or earlier by a program that finishes each core as soon as it
    // is built, so that the copies of a data-parallel model are never all held at once (later calls
    // do nothing).
    void finish();
    uint32_t semaphores_used() const { return uint32_t(signals_.size()); }

private:
    enum class Access : uint8_t { Read, Write, ReadWrite };
    struct Use {
        const View* view;
        Access access;
    };
    struct Queue {
        isa::Engine engine;
        uint8_t number;
        std::vector<isa::Instruction> instructions;
        std::map<uint16_t, uint32_t> passed;  // semaphore values this queue has already waited for
    };

    // Several dependencies of a DMA queue (which cannot wait on more than one semaphore per
    // instruction, and runs no nops): a compute engine among them waits for the others, then a
    // one-element copy on it signals its progress; the DMA waits for that.
    SyncPoint join(const SyncSet& deps);
    void allocate_join_scratch();
    SyncSet dma_dependencies(DmaChannel& channel, const std::vector<Use>& uses);
    // Emits a transfer's pieces (dma_copy or dma_gather) round robin on the channel's queues.
    // std::logic_error unless `channel` was made by this core (its semaphore and queues are this core's).
    void check_owned(const DmaChannel& channel) const;
    void transfer(DmaChannel& channel, const std::vector<isa::Instruction>& pieces, const std::vector<Use>& uses);
    void point_to_point(DmaChannel& channel, isa::Instruction inst, const std::vector<Use>& uses);
    Buffer allocate_sbuf(uint64_t bytes_per_partition, const std::string& what, bool tracked);
    void add_buffer(const Buffer& b, bool tracked = true);
    uint16_t new_semaphore(const std::string& name);
    int32_t queue_index(isa::Engine engine, uint8_t number);
    SyncSet dependencies(const std::vector<Use>& uses) const;
    void record(const std::vector<Use>& uses, const SyncPoint& point);
    void wait_then_push(int32_t queue, isa::Instruction inst, const SyncSet& deps, uint16_t signal);
    // Emits one compute instruction: its waits, its signal, the buffers' new state.
    void compute(isa::Engine engine, const isa::Instruction& inst, const std::vector<Use>& uses);
    void check_engine(isa::Engine engine, const char* what) const;

    const config::NeuronCoreSpec& spec_;
    uint32_t core_;
    isa::Container& program_;
    uint64_t sbuf_top_ = 0;
    std::vector<Buffer> buffers_;                 // by id
    BufferStates states_;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Buffer> psum_buffers_;
    std::vector<uint16_t> psum_semaphores_;
    std::map<isa::Engine, uint16_t> progress_;
    std::vector<uint32_t> signals_;               // by semaphore: signals emitted so far
    std::vector<Queue> queues_;
    std::map<std::pair<isa::Engine, uint8_t>, int32_t> queue_index_;
    std::vector<std::unique_ptr<DmaChannel>> channels_;
    uint64_t emitted_ = 0;
    Buffer join_scratch_;
    std::optional<isa::Instruction> rounding_;  // put at the head of every queue (set_stochastic_rounding)
};

}  // namespace nsim::kernels::builder
