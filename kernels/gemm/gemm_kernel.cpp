#include "gemm/gemm_kernel.h"

#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>

namespace nsim::kernels {
namespace {

using isa::AccessPattern;
using isa::DType;
using isa::Engine;
using isa::Instruction;
using isa::MemorySpace;
using isa::Opcode;

constexpr uint32_t kBf16Bytes = 2;
constexpr uint32_t kFp32Bytes = 4;

AccessPattern on_chip(MemorySpace space, uint32_t first_partition, uint32_t partitions, uint64_t offset, DType dtype,
                      uint32_t elements) {
    AccessPattern ap;
    ap.space = space;
    ap.dtype = dtype;
    ap.partition_start = first_partition;
    ap.partition_count = partitions;
    ap.offset = offset;
    ap.dim_count = 1;
    ap.dims[0] = {1, elements};
    return ap;
}

// Rows [row, row + rows) and columns [column, column + columns) of a row-major [.., row_length] tensor.
AccessPattern dram_block(uint32_t tensor, uint32_t row_length, uint32_t row, uint32_t rows, uint32_t column,
                         uint32_t columns, DType dtype) {
    AccessPattern ap;
    ap.space = MemorySpace::Dram;
    ap.dtype = dtype;
    ap.tensor = tensor;
    ap.partition_count = rows;
    ap.partition_stride = int32_t(row_length);
    ap.offset = (uint64_t(row) * row_length + column) * isa::size_in_bytes(dtype);
    ap.dim_count = 1;
    ap.dims[0] = {1, columns};
    return ap;
}

// Deterministic values in [-1, 1), portable across standard libraries.
class Lcg {
public:
    explicit Lcg(uint32_t seed) : state_(seed * 2654435761u + 1) {}
    float next() {
        state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
        return float(double(state_ >> 40) / double(1ull << 24)) * 2.0f - 1.0f;
    }

private:
    uint64_t state_;
};

std::vector<uint8_t> bf16_bytes(const std::vector<float>& values) {
    std::vector<uint8_t> bytes(values.size() * kBf16Bytes);
    for (size_t i = 0; i < values.size(); ++i) {
        const uint16_t bits = to_bf16(values[i]);
        std::memcpy(&bytes[i * kBf16Bytes], &bits, kBf16Bytes);
    }
    return bytes;
}

class GemmBuilder {
public:
    GemmBuilder(const config::NeuronCoreSpec& core, const GemmShape& shape, const GemmSchedule& schedule)
        : core_(core), shape_(shape), schedule_(schedule) {
        tk_ = core.tensor.max_contraction;
        tm_ = core.tensor.max_stationary_free;
        tn_ = std::min(core.tensor.max_moving_free, shape.n);
        if (shape.m % tm_ || shape.k % tk_ || shape.n % tn_)
            throw std::invalid_argument("GEMM shape must be a multiple of the tile " + std::to_string(tm_) + "x" +
                                        std::to_string(tk_) + "x" + std::to_string(tn_));
        mt_ = shape.m / tm_, kt_ = shape.k / tk_, nt_ = shape.n / tn_;
        partitions_ = core.sbuf.partitions;
        if (schedule.dma_split == 0 || partitions_ % schedule.dma_split)
            throw std::invalid_argument("dma_split must divide the partitions");
        if (core.psum.banks == 0 || schedule.psum_banks > core.psum.banks)
            throw std::invalid_argument("the schedule uses more PSUM banks than the core has");
        bank_bytes_ = core.psum.bytes_per_partition / core.psum.banks;
        if (uint64_t(tn_) * kFp32Bytes > bank_bytes_) throw std::invalid_argument("a moving tile does not fit a PSUM bank");
        for (Engine e : {Engine::Act, Engine::Dve, Engine::Pool})
            if (has_engine(e)) evacuators_.push_back(e);
        if (evacuators_.empty()) throw std::invalid_argument("the core has no engine to evacuate PSUM");

        // SBUF per partition: B resident, then the AT ring, then the output ring.
        b_base_ = 0;
        if (schedule.first_group_m_tiles * nt_ > schedule.psum_banks)
            throw std::invalid_argument("the first group needs more PSUM banks than the schedule may use");
        a_slot_bytes_ = uint64_t(std::max(schedule.first_group_m_tiles, kt_)) * tm_ * kBf16Bytes;
        a_base_ = b_base_ + uint64_t(kt_) * shape.n * kBf16Bytes;
        out_slot_bytes_ = uint64_t(tn_) * kBf16Bytes;
        out_base_ = a_base_ + schedule.a_slots * a_slot_bytes_;
        if (out_base_ + schedule.out_slots * out_slot_bytes_ > core.sbuf.bytes_per_partition)
            throw std::invalid_argument("the GEMM's buffers do not fit SBUF");
    }

    isa::Container build(bool with_data, uint32_t seed) {
        container_.generation = uint32_t(std::stoul(core_.version.substr(1)));
        container_.cores_needed = 1;
        container_.metadata = {{"kernel", "gemm"},
                               {"shape", "M=" + std::to_string(shape_.m) + " K=" + std::to_string(shape_.k) +
                                             " N=" + std::to_string(shape_.n)},
                               {"schedule", schedule_.a_slots > 1 ? "double-buffered" : "single-buffered"}};
        add_tensor("AT", isa::TensorRole::Weight, {shape_.k, shape_.m}, 0);
        add_tensor("B", isa::TensorRole::Input, {shape_.k, shape_.n}, uint64_t(shape_.k) * shape_.m * kBf16Bytes);
        add_tensor("C", isa::TensorRole::Output, {shape_.m, shape_.n},
                   uint64_t(shape_.k) * (shape_.m + shape_.n) * kBf16Bytes);
        if (with_data) {
            const GemmInputs inputs = gemm_inputs(shape_, seed);
            container_.tensors[kAt].data = bf16_bytes(inputs.at);
            container_.tensors[kB].data = bf16_bytes(inputs.b);
        }
        allocate_semaphores();
        if (!schedule_.b_in_steps || schedule_.first_group_m_tiles == 0) load_b(0, kt_, isa::kNoSemaphore, 0);
        schedule_tiles();
        if (container_.semaphore_names.size() > core_.semaphores)
            throw std::invalid_argument("the schedule needs " + std::to_string(container_.semaphore_names.size()) +
                                        " semaphores, the core has " + std::to_string(core_.semaphores));
        for (auto& entry : streams_) container_.streams.push_back(std::move(entry.second));
        container_.canonicalize();
        return std::move(container_);
    }

private:
    static constexpr uint32_t kAt = 0, kB = 1, kC = 2;
    // DMA queue classes: each kind of transfer has its own queue on every DMA engine.
    enum QueueClass : uint32_t { kLoadB = 0, kLoadA = 2 };  // stores follow the AT slots' queues

    bool has_engine(Engine e) const {
        const char* name = e == Engine::Act ? "scalar" : e == Engine::Dve ? "vector" : "gpsimd";
        for (const auto& spec : core_.engines)
            if (spec.name == name) return true;
        return false;
    }

    void add_tensor(const std::string& name, isa::TensorRole role, std::vector<uint64_t> shape, uint64_t offset) {
        isa::TensorInfo t;
        t.name = name;
        t.role = role;
        t.dtype = DType::Bf16;
        t.location = isa::TensorLocation::Device;
        t.shape = std::move(shape);
        t.offset = offset;
        container_.tensors.push_back(std::move(t));
    }

    uint16_t semaphore(const std::string& name) {
        const uint16_t index = uint16_t(container_.semaphore_names.size());
        container_.semaphore_names.push_back({index, name});
        return index;
    }

    void allocate_semaphores() {
        for (uint32_t k = 0; k < kt_; ++k)
            for (uint32_t n = 0; n < nt_; ++n)
                b_ready_.push_back(semaphore("b_ready" + std::to_string(k) + "_" + std::to_string(n)));
        for (uint32_t s = 0; s < schedule_.a_slots; ++s) {
            a_ready_.push_back(semaphore("a_ready" + std::to_string(s)));
            step_done_.push_back(semaphore("step_done" + std::to_string(s)));
        }
        for (uint32_t b = 0; b < schedule_.psum_banks; ++b) {
            bank_full_.push_back(semaphore("bank_full" + std::to_string(b)));
            bank_free_.push_back(semaphore("bank_free" + std::to_string(b)));
        }
        for (uint32_t o = 0; o < schedule_.out_slots; ++o) {
            out_ready_.push_back(semaphore("out_ready" + std::to_string(o)));
            stored_.push_back(semaphore("stored" + std::to_string(o)));
        }
    }

    // Streams live in a map until the end (stable references while others are added).
    std::vector<Instruction>& stream(Engine engine, uint32_t queue = 0) {
        isa::InstructionStream& s = streams_[std::make_pair(engine, queue)];
        s.engine = engine;
        s.queue = uint8_t(queue);
        return s.instructions;
    }

    static Instruction with_sync(Instruction inst, uint16_t wait, uint32_t value, uint16_t signal) {
        inst.sync.wait_semaphore = wait;
        inst.sync.wait_value = value;
        inst.sync.signal_semaphore = signal;
        return inst;
    }

    static Instruction nop(uint16_t wait, uint32_t value, uint16_t signal = isa::kNoSemaphore) {
        Instruction inst;
        inst.opcode = Opcode::Nop;
        return with_sync(inst, wait, value, signal);
    }

    uint32_t dma_queue(uint32_t queue_class, uint32_t piece) const {
        const uint32_t queue = queue_class * core_.dma_engines + piece % core_.dma_engines;
        if (queue >= core_.dma_engines * core_.dma_queues_per_engine)
            throw std::invalid_argument("the schedule needs more DMA queues than the core has");
        return queue;
    }

    uint32_t piece_rows() const { return partitions_ / schedule_.dma_split; }

    // One DMA per partition slice: dst on chip, src a DRAM block (or the reverse for stores).
    void dma_pieces(uint32_t queue_class, const AccessPattern& on_chip_whole, const AccessPattern& dram_whole,
                    bool to_dram, uint16_t wait, uint32_t wait_value, uint16_t signal) {
        const uint32_t rows = piece_rows();
        for (uint32_t piece = 0; piece < schedule_.dma_split; ++piece) {
            AccessPattern chip = on_chip_whole, dram = dram_whole;
            chip.partition_start = on_chip_whole.partition_start + piece * rows;
            chip.partition_count = rows;
            dram.offset += uint64_t(piece) * rows * dram.partition_stride * isa::size_in_bytes(dram.dtype);
            dram.partition_count = rows;
            Instruction copy;
            copy.opcode = Opcode::DmaCopy;
            copy.set(isa::fields::DmaCopy::dst, to_dram ? dram : chip);
            copy.set(isa::fields::DmaCopy::src, to_dram ? chip : dram);
            stream(Engine::Dma, dma_queue(queue_class, piece)).push_back(with_sync(copy, wait, wait_value, signal));
        }
    }

    // B stays in SBUF: k-block k (rows k*TK..) at b_base + k * N elements, loaded one [TK, TN] tile
    // at a time in the order the matmuls first need them, on two queues per DMA engine.
    void load_b(uint32_t k_begin, uint32_t k_end, uint16_t wait, uint32_t wait_value) {
        for (uint32_t k = k_begin; k < k_end; ++k)
            for (uint32_t n = 0; n < nt_; ++n)
                dma_pieces(kLoadB + (k * nt_ + n) % 2,
                           on_chip(MemorySpace::Sbuf, 0, tk_, b_base_ + (uint64_t(k) * shape_.n + n * tn_) * kBf16Bytes,
                                   DType::Bf16, tn_),
                           dram_block(kB, shape_.n, k * tk_, tk_, n * tn_, tn_, DType::Bf16), false, wait, wait_value,
                           b_ready_[k * nt_ + n]);
    }

    struct Tile {
        uint32_t m, n;
    };

    // The matmuls of one step, and which tiles they finish.
    struct Matmul {
        Tile tile;
        uint32_t k;
        uint64_t stationary;  // SBUF offset of its stationary tile
    };

    // One DMA per partition slice of an AT block [rows of k, columns m0 .. m0 + columns) per k-block.
    void load_at(uint32_t slot, uint32_t use, uint32_t k0, uint32_t k_blocks, uint32_t m0, uint32_t columns) {
        AccessPattern dram = dram_block(kAt, shape_.m, k0 * tk_, tk_, m0 * tm_, columns * tm_, DType::Bf16);
        if (k_blocks > 1) {
            dram.dim_count = 2;
            dram.dims[1] = dram.dims[0];
            dram.dims[0] = {int32_t(tk_ * shape_.m), k_blocks};
        }
        dma_pieces(kLoadA + slot,
                   on_chip(MemorySpace::Sbuf, 0, tk_, a_base_ + slot * a_slot_bytes_, DType::Bf16, k_blocks * columns * tm_),
                   dram, false, use ? step_done_[slot] : isa::kNoSemaphore, use, a_ready_[slot]);
    }

    void schedule_tiles() {
        uint32_t step = 0, tile_index = 0;
        std::vector<uint32_t> bank_uses(schedule_.psum_banks, 0);
        std::vector<bool> b_waited(kt_ * nt_, false);
        std::vector<Instruction>& pe = stream(Engine::Pe);

        // Runs one step: its AT load, then its matmuls; tiles finishing in it are evacuated and stored.
        auto run_step = [&](const std::vector<Matmul>& matmuls, uint32_t slot) {
            std::map<std::pair<uint32_t, uint32_t>, uint32_t> bank_of;  // tile -> bank, this step
            for (const Matmul& mm : matmuls) {
                const uint32_t b_tile = mm.k * nt_ + mm.tile.n;
                if (!b_waited[b_tile]) {
                    pe.push_back(nop(b_ready_[b_tile], schedule_.dma_split));
                    b_waited[b_tile] = true;
                }
                const auto key = std::make_pair(mm.tile.m, mm.tile.n);
                auto it = tiles_open_.find(key);
                if (it == tiles_open_.end()) {
                    const uint32_t bank = next_bank_++ % schedule_.psum_banks;
                    if (bank_uses[bank] > 0) pe.push_back(nop(bank_free_[bank], bank_uses[bank]));
                    it = tiles_open_.emplace(key, bank).first;
                }
                const uint32_t bank = it->second;
                const bool last = mm.k + 1 == kt_;
                Instruction inst;
                inst.opcode = Opcode::Matmul;
                inst.set(isa::fields::Matmul::dst, on_chip(MemorySpace::Psum, 0, tm_, uint64_t(bank) * bank_bytes_, DType::Fp32, tn_));
                inst.set(isa::fields::Matmul::stationary, on_chip(MemorySpace::Sbuf, 0, tk_, mm.stationary, DType::Bf16, tm_));
                inst.set(isa::fields::Matmul::moving,
                         on_chip(MemorySpace::Sbuf, 0, tk_,
                                 b_base_ + (uint64_t(mm.k) * shape_.n + uint64_t(mm.tile.n) * tn_) * kBf16Bytes, DType::Bf16, tn_));
                inst.set_enum(isa::fields::Matmul::acc, mm.k == 0 ? isa::AccumulateMode::Overwrite : isa::AccumulateMode::Accumulate);
                pe.push_back(with_sync(inst, isa::kNoSemaphore, 0, last ? bank_full_[bank] : isa::kNoSemaphore));
                if (last) {
                    finished_.push_back({mm.tile, bank, bank_uses[bank]++});
                    tiles_open_.erase(it);
                }
            }
            // The step's inputs are consumed once its last matmul has streamed.
            pe.push_back(nop(isa::kNoSemaphore, 0, step_done_[slot]));
            for (const Finished& f : finished_) evacuate_and_store(f.tile, f.bank, f.bank_use, tile_index++);
            finished_.clear();
        };

        // The first group: its k-blocks one step each, the n-tiles outermost within a step so that
        // the first matmuls need only the first B tile.
        const uint32_t group = std::min(schedule_.first_group_m_tiles, mt_);
        for (uint32_t k = 0; group > 0 && k < kt_; ++k, ++step) {
            const uint32_t slot = step % schedule_.a_slots, use = step / schedule_.a_slots;
            if (schedule_.b_in_steps) load_b(k, k + 1, use ? step_done_[slot] : isa::kNoSemaphore, use);
            load_at(slot, use, k, 1, 0, group);
            pe.push_back(nop(a_ready_[slot], schedule_.dma_split * (use + 1)));
            std::vector<Matmul> matmuls;
            for (uint32_t n = 0; n < nt_; ++n)
                for (uint32_t m = 0; m < group; ++m)
                    matmuls.push_back({{m, n}, k, a_base_ + slot * a_slot_bytes_ + uint64_t(m) * tm_ * kBf16Bytes});
            run_step(matmuls, slot);
        }
        // Every later m-tile: its whole AT column block in one step, its n-tiles one after the other.
        for (uint32_t m = group; m < mt_; ++m, ++step) {
            const uint32_t slot = step % schedule_.a_slots, use = step / schedule_.a_slots;
            load_at(slot, use, 0, kt_, m, 1);
            pe.push_back(nop(a_ready_[slot], schedule_.dma_split * (use + 1)));
            std::vector<Matmul> matmuls;
            for (uint32_t n = 0; n < nt_; ++n)
                for (uint32_t k = 0; k < kt_; ++k)
                    matmuls.push_back({{m, n}, k, a_base_ + slot * a_slot_bytes_ + uint64_t(k) * tm_ * kBf16Bytes});
            run_step(matmuls, slot);
        }
    }

    void evacuate_and_store(const Tile& tile, uint32_t bank, uint32_t bank_use, uint32_t tile_index) {
        const Engine engine = evacuators_[tile_index % evacuators_.size()];
        const uint32_t slot = tile_index % schedule_.out_slots, use = tile_index / schedule_.out_slots;
        const AccessPattern out = on_chip(MemorySpace::Sbuf, 0, tm_, out_base_ + slot * out_slot_bytes_, DType::Bf16, tn_);
        const AccessPattern psum = on_chip(MemorySpace::Psum, 0, tm_, uint64_t(bank) * bank_bytes_, DType::Fp32, tn_);
        std::vector<Instruction>& evac = stream(engine);
        if (use > 0) evac.push_back(nop(stored_[slot], schedule_.dma_split * use));
        Instruction copy;
        if (engine == Engine::Act) {
            copy.opcode = Opcode::Activation;
            copy.set(isa::fields::Activation::dst, out);
            copy.set(isa::fields::Activation::src, psum);
            copy.set_enum(isa::fields::Activation::func, isa::ActivationFunction::Identity);
            copy.set_f32(isa::fields::Activation::scale, 1.0f);
            copy.set_enum(isa::fields::Activation::reduce_op, isa::ReduceOp::None);
        } else {
            copy.opcode = Opcode::TensorCopy;
            copy.set(isa::fields::TensorCopy::dst, out);
            copy.set(isa::fields::TensorCopy::src, psum);
        }
        evac.push_back(with_sync(copy, bank_full_[bank], bank_use + 1, out_ready_[slot]));
        evac.push_back(nop(isa::kNoSemaphore, 0, bank_free_[bank]));
        dma_pieces(kLoadA + schedule_.a_slots + tile_index % 2, out,
                   dram_block(kC, shape_.n, tile.m * tm_, tm_, tile.n * tn_, tn_, DType::Bf16), true, out_ready_[slot],
                   use + 1, stored_[slot]);
    }

    const config::NeuronCoreSpec& core_;
    GemmShape shape_;
    GemmSchedule schedule_;
    isa::Container container_;
    std::map<std::pair<Engine, uint32_t>, isa::InstructionStream> streams_;
    std::vector<Engine> evacuators_;
    uint32_t tk_ = 0, tm_ = 0, tn_ = 0, mt_ = 0, kt_ = 0, nt_ = 0, partitions_ = 0;
    uint64_t bank_bytes_ = 0, b_base_ = 0, a_base_ = 0, a_slot_bytes_ = 0, out_base_ = 0, out_slot_bytes_ = 0;
    std::vector<uint16_t> b_ready_, a_ready_, step_done_, bank_full_, bank_free_, out_ready_, stored_;
    struct Finished {
        Tile tile;
        uint32_t bank, bank_use;
    };
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> tiles_open_;  // accumulating tile -> its bank
    std::vector<Finished> finished_;
    uint32_t next_bank_ = 0;
};

}  // namespace

GemmSchedule GemmSchedule::double_buffered() { return GemmSchedule{}; }

GemmSchedule GemmSchedule::single_buffered() {
    GemmSchedule s;
    s.first_group_m_tiles = 0;
    s.a_slots = 1;
    s.out_slots = 1;
    s.psum_banks = 1;
    return s;
}

uint16_t to_bf16(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu)) return uint16_t((bits >> 16) | 0x40);  // NaN
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return uint16_t(bits >> 16);
}

float from_bf16(uint16_t bits) {
    const uint32_t wide = uint32_t(bits) << 16;
    float value;
    std::memcpy(&value, &wide, sizeof value);
    return value;
}

GemmInputs gemm_inputs(const GemmShape& shape, uint32_t seed) {
    GemmInputs inputs;
    Lcg random(seed);
    inputs.at.resize(size_t(shape.k) * shape.m);
    inputs.b.resize(size_t(shape.k) * shape.n);
    for (float& v : inputs.at) v = from_bf16(to_bf16(random.next()));
    for (float& v : inputs.b) v = from_bf16(to_bf16(random.next()));
    return inputs;
}

std::vector<float> gemm_reference(const GemmShape& shape, const GemmInputs& inputs) {
    std::vector<float> c(size_t(shape.m) * shape.n, 0.0f);
    for (uint32_t k = 0; k < shape.k; ++k)
        for (uint32_t m = 0; m < shape.m; ++m) {
            const float a = inputs.at[size_t(k) * shape.m + m];
            float* row = &c[size_t(m) * shape.n];
            const float* b = &inputs.b[size_t(k) * shape.n];
            for (uint32_t n = 0; n < shape.n; ++n) row[n] += a * b[n];
        }
    return c;
}

isa::Container build_gemm(const config::NeuronCoreSpec& core, const GemmShape& shape, const GemmSchedule& schedule,
                          bool with_data, uint32_t seed) {
    return GemmBuilder(core, shape, schedule).build(with_data, seed);
}

}  // namespace nsim::kernels
