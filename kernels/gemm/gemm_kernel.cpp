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
        const uint32_t widest_group = std::max(schedule.first_group_m_tiles, schedule.group_m_tiles);
        a_slot_bytes_ = uint64_t(widest_group) * tm_ * kBf16Bytes;
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
        load_b();
        schedule_tiles();
        if (container_.semaphore_names.size() > core_.semaphores)
            throw std::invalid_argument("the schedule needs " + std::to_string(container_.semaphore_names.size()) +
                                        " semaphores, the core has " + std::to_string(core_.semaphores));
        container_.canonicalize();
        return std::move(container_);
    }

private:
    static constexpr uint32_t kAt = 0, kB = 1, kC = 2;
    // DMA queue classes: each kind of transfer has its own queue on every DMA engine.
    enum QueueClass : uint32_t { kLoadB = 0, kLoadA = 1, kStore = 1 + 2 };

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
        for (uint32_t k = 0; k < kt_; ++k) b_ready_.push_back(semaphore("b_ready" + std::to_string(k)));
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

    std::vector<Instruction>& stream(Engine engine, uint32_t queue = 0) {
        const auto key = std::make_pair(engine, queue);
        auto it = streams_.find(key);
        if (it == streams_.end()) {
            isa::InstructionStream s;
            s.core = 0;
            s.engine = engine;
            s.queue = uint8_t(queue);
            container_.streams.push_back(std::move(s));
            it = streams_.emplace(key, container_.streams.size() - 1).first;
        }
        return container_.streams[it->second].instructions;
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
        return queue_class * core_.dma_engines + piece % core_.dma_engines;
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

    // B stays in SBUF: k-block k (rows k*TK..) at b_base + k * N elements.
    void load_b() {
        for (uint32_t k = 0; k < kt_; ++k)
            dma_pieces(kLoadB,
                       on_chip(MemorySpace::Sbuf, 0, tk_, b_base_ + uint64_t(k) * shape_.n * kBf16Bytes, DType::Bf16,
                               shape_.n),
                       dram_block(kB, shape_.n, k * tk_, tk_, 0, shape_.n, DType::Bf16), false, isa::kNoSemaphore, 0,
                       b_ready_[k]);
    }

    struct Tile {
        uint32_t m, n;
    };

    void schedule_tiles() {
        std::vector<std::vector<Tile>> groups;
        const uint32_t n_per_group = schedule_.psum_banks >= nt_ ? nt_ : 1;
        for (uint32_t m0 = 0; m0 < mt_;) {
            const uint32_t gm = std::min(m0 == 0 ? schedule_.first_group_m_tiles : schedule_.group_m_tiles, mt_ - m0);
            for (uint32_t n0 = 0; n0 < nt_; n0 += n_per_group) {
                std::vector<Tile> group;
                for (uint32_t m = m0; m < m0 + gm; ++m)
                    for (uint32_t n = n0; n < n0 + n_per_group; ++n) group.push_back({m, n});
                if (group.size() > schedule_.psum_banks)
                    throw std::invalid_argument("a group of the schedule needs more PSUM banks than it may use");
                groups.push_back(std::move(group));
            }
            m0 += gm;
        }
        uint32_t step = 0, tile_index = 0;
        std::vector<uint32_t> bank_uses(schedule_.psum_banks, 0);
        for (size_t g = 0; g < groups.size(); ++g) {
            const std::vector<Tile>& group = groups[g];
            const uint32_t m0 = group.front().m, gm = group.back().m - m0 + 1;
            std::vector<uint32_t> banks;
            for (size_t t = 0; t < group.size(); ++t) banks.push_back((tile_index + uint32_t(t)) % schedule_.psum_banks);
            for (uint32_t k = 0; k < kt_; ++k, ++step) {
                const uint32_t slot = step % schedule_.a_slots, use = step / schedule_.a_slots;
                const uint64_t a_offset = a_base_ + slot * a_slot_bytes_;
                // The AT block of this k-step, once the step that last used the slot has multiplied.
                dma_pieces(kLoadA + slot, on_chip(MemorySpace::Sbuf, 0, tk_, a_offset, DType::Bf16, gm * tm_),
                           dram_block(kAt, shape_.m, k * tk_, tk_, m0 * tm_, gm * tm_, DType::Bf16), false,
                           use ? step_done_[slot] : isa::kNoSemaphore, use, a_ready_[slot]);
                std::vector<Instruction>& pe = stream(Engine::Pe);
                if (g == 0) pe.push_back(nop(b_ready_[k], schedule_.dma_split));
                pe.push_back(nop(a_ready_[slot], schedule_.dma_split * (use + 1)));
                for (size_t t = 0; t < group.size(); ++t) {
                    const Tile& tile = group[t];
                    const uint32_t bank = banks[t];
                    if (k == 0 && bank_uses[bank] > 0) pe.push_back(nop(bank_free_[bank], bank_uses[bank]));
                    Instruction mm;
                    mm.opcode = Opcode::Matmul;
                    mm.set(isa::fields::Matmul::dst,
                           on_chip(MemorySpace::Psum, 0, tm_, uint64_t(bank) * bank_bytes_, DType::Fp32, tn_));
                    mm.set(isa::fields::Matmul::stationary,
                           on_chip(MemorySpace::Sbuf, 0, tk_, a_offset + uint64_t(tile.m - m0) * tm_ * kBf16Bytes,
                                   DType::Bf16, tm_));
                    mm.set(isa::fields::Matmul::moving,
                           on_chip(MemorySpace::Sbuf, 0, tk_,
                                   b_base_ + (uint64_t(k) * shape_.n + uint64_t(tile.n) * tn_) * kBf16Bytes, DType::Bf16,
                                   tn_));
                    mm.set_enum(isa::fields::Matmul::acc,
                                k == 0 ? isa::AccumulateMode::Overwrite : isa::AccumulateMode::Accumulate);
                    pe.push_back(with_sync(mm, isa::kNoSemaphore, 0, k + 1 == kt_ ? bank_full_[bank] : isa::kNoSemaphore));
                }
                // The step's inputs are consumed once its last matmul has streamed.
                pe.push_back(nop(isa::kNoSemaphore, 0, step_done_[slot]));
            }
            for (size_t t = 0; t < group.size(); ++t) {
                evacuate_and_store(group[t], banks[t], bank_uses[banks[t]], tile_index);
                ++bank_uses[banks[t]];
                ++tile_index;
            }
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
        dma_pieces(kStore + tile_index % 2, out,
                   dram_block(kC, shape_.n, tile.m * tm_, tm_, tile.n * tn_, tn_, DType::Bf16), true, out_ready_[slot],
                   use + 1, stored_[slot]);
    }

    const config::NeuronCoreSpec& core_;
    GemmShape shape_;
    GemmSchedule schedule_;
    isa::Container container_;
    std::map<std::pair<Engine, uint32_t>, size_t> streams_;
    std::vector<Engine> evacuators_;
    uint32_t tk_ = 0, tm_ = 0, tn_ = 0, mt_ = 0, kt_ = 0, nt_ = 0, partitions_ = 0;
    uint64_t bank_bytes_ = 0, b_base_ = 0, a_base_ = 0, a_slot_bytes_ = 0, out_base_ = 0, out_slot_bytes_ = 0;
    std::vector<uint16_t> b_ready_, a_ready_, step_done_, bank_full_, bank_free_, out_ready_, stored_;
};

}  // namespace

GemmSchedule GemmSchedule::double_buffered() { return GemmSchedule{}; }

GemmSchedule GemmSchedule::single_buffered() {
    GemmSchedule s;
    s.first_group_m_tiles = 1;
    s.group_m_tiles = 1;
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
