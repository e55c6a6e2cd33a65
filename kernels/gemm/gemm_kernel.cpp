#include "gemm/gemm_kernel.h"

#include <algorithm>
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

// Columns [column, column + width) of the rows of m-tile `m` of C: one PSUM accumulation.
struct OutputTile {
    uint32_t m = 0, column = 0, width = 0;
};

// AT tiles of k-blocks [k_first, k_first + k_blocks) x m-tiles [m_first, m_first + m_tiles), stored
// k-block-major from `offset` in the step's slot. One transfer with its own semaphore.
struct AtPart {
    uint32_t k_first = 0, k_blocks = 0, m_first = 0, m_tiles = 0;
    uint64_t offset = 0;
};

struct Matmul {
    OutputTile tile;
    uint32_t k = 0;
    uint32_t part = 0;  // the step's AtPart holding the stationary tile
};

// Matmuls whose stationary tiles share one AT slot.
struct Step {
    std::vector<AtPart> parts;
    std::vector<Matmul> matmuls;
};

class GemmBuilder {
public:
    GemmBuilder(const config::NeuronCoreSpec& core, const GemmShape& shape, const GemmSchedule& schedule)
        : core_(core), shape_(shape), schedule_(schedule) {
        tk_ = core.tensor.max_contraction;
        tm_ = core.tensor.max_stationary_free;
        tn_ = std::min(core.tensor.max_moving_free, shape.n);
        if (tk_ == 0 || tm_ == 0 || tn_ == 0 || shape.m % tm_ || shape.k % tk_ || shape.n % tn_)
            throw std::invalid_argument("GEMM shape must be a multiple of the tile " + std::to_string(tm_) + "x" +
                                        std::to_string(tk_) + "x" + std::to_string(tn_));
        mt_ = shape.m / tm_, kt_ = shape.k / tk_, nt_ = shape.n / tn_;
        engines_ = core.dma_engines;
        if (engines_ == 0) throw std::invalid_argument("the core has no DMA engine");
        if (schedule.load_lanes == 0 || schedule.store_lanes == 0 ||
            schedule.load_lanes + schedule.store_lanes > core.dma_queues_per_engine)
            throw std::invalid_argument("the schedule needs " + std::to_string(schedule.load_lanes + schedule.store_lanes) +
                                        " DMA queues per engine, the core has " +
                                        std::to_string(core.dma_queues_per_engine));
        if (core.psum.banks == 0 || schedule.psum_banks == 0 || schedule.psum_banks > core.psum.banks)
            throw std::invalid_argument("the schedule uses more PSUM banks than the core has");
        bank_bytes_ = core.psum.bytes_per_partition / core.psum.banks;
        if (uint64_t(tn_) * kFp32Bytes > bank_bytes_) throw std::invalid_argument("a moving tile does not fit a PSUM bank");
        if (schedule.a_slots == 0 || schedule.out_slots == 0) throw std::invalid_argument("the schedule needs buffers");
        for (Engine e : {Engine::Act, Engine::Dve, Engine::Pool})
            if (has_engine(e)) evacuators_.push_back(e);
        if (evacuators_.empty()) throw std::invalid_argument("the core has no engine to evacuate PSUM");
        plan_steps();

        // SBUF per partition: B resident, then the AT slots, then the output ring.
        b_base_ = 0;
        a_base_ = b_base_ + uint64_t(kt_) * shape.n * kBf16Bytes;
        for (const Step& step : steps_) {
            const AtPart& last = step.parts.back();
            slot_bytes_ = std::max(slot_bytes_, last.offset + part_bytes(last));
            max_parts_ = std::max(max_parts_, uint32_t(step.parts.size()));
        }
        out_slot_bytes_ = uint64_t(tn_) * kBf16Bytes;
        out_base_ = a_base_ + schedule.a_slots * slot_bytes_;
        if (out_base_ + schedule.out_slots * out_slot_bytes_ > core.sbuf.bytes_per_partition)
            throw std::invalid_argument("the GEMM's buffers do not fit SBUF");
    }

    isa::Container build(bool with_data, uint32_t seed) {
        container_.generation = uint32_t(std::stoul(core_.version.substr(1)));
        container_.cores_needed = 1;
        const uint32_t slots = schedule_.a_slots;
        container_.metadata = {{"kernel", "gemm"},
                               {"shape", "M=" + std::to_string(shape_.m) + " K=" + std::to_string(shape_.k) +
                                             " N=" + std::to_string(shape_.n)},
                               {"schedule", slots == 1   ? "single-buffered"
                                            : slots == 2 ? "double-buffered"
                                                         : std::to_string(slots) + " AT slots"}};
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
        schedule_steps();
        if (container_.semaphore_names.size() > core_.semaphores)
            throw std::invalid_argument("the schedule needs " + std::to_string(container_.semaphore_names.size()) +
                                        " semaphores, the core has " + std::to_string(core_.semaphores));
        for (auto& entry : streams_) container_.streams.push_back(std::move(entry.second));
        container_.canonicalize();
        return std::move(container_);
    }

private:
    static constexpr uint32_t kAt = 0, kB = 1, kC = 2;

    bool has_engine(Engine e) const {
        const char* name = e == Engine::Act ? "scalar" : e == Engine::Dve ? "vector" : "gpsimd";
        for (const auto& spec : core_.engines)
            if (spec.name == name) return true;
        return false;
    }

    uint64_t part_bytes(const AtPart& part) const {
        return uint64_t(part.k_blocks) * part.m_tiles * tm_ * kBf16Bytes;
    }

    uint64_t stationary_offset(const AtPart& part, uint32_t k, uint32_t m) const {
        return part.offset + (uint64_t(k - part.k_first) * part.m_tiles + (m - part.m_first)) * tm_ * kBf16Bytes;
    }

    // ---- the plan: which matmuls each step runs, in order, and how its AT arrives ------------------

    // Parts are laid out one after the other in the slot.
    void add_part(Step& step, uint32_t k_first, uint32_t k_blocks, uint32_t m_first, uint32_t m_tiles) const {
        const uint64_t offset = step.parts.empty() ? 0 : step.parts.back().offset + part_bytes(step.parts.back());
        step.parts.push_back({k_first, k_blocks, m_first, m_tiles, offset});
    }

    uint32_t part_holding(const Step& step, uint32_t k, uint32_t m) const {
        for (uint32_t p = 0; p < step.parts.size(); ++p) {
            const AtPart& part = step.parts[p];
            if (k >= part.k_first && k < part.k_first + part.k_blocks && m >= part.m_first &&
                m < part.m_first + part.m_tiles)
                return p;
        }
        throw std::logic_error("no AT part holds the tile");
    }

    // The widths the output tiles of m-tile `m` are computed in: TN each, except that the kernel's
    // last tile is halved down to tail_min_n so that little work follows the last matmul.
    std::vector<uint32_t> output_widths(uint32_t m) const {
        std::vector<uint32_t> widths(nt_, tn_);
        const uint32_t narrowest = schedule_.tail_min_n;
        if (m + 1 != mt_ || narrowest == 0 || narrowest >= tn_) return widths;
        widths.pop_back();
        uint32_t rest = tn_;
        while (rest > narrowest) {
            rest /= 2;
            widths.push_back(rest);
        }
        widths.push_back(rest);
        if (rest != narrowest) throw std::invalid_argument("tail_min_n must be the moving tile width over a power of two");
        return widths;
    }

    void plan_steps() {
        const uint32_t group = std::min(schedule_.group_m_tiles, mt_);
        if (group > 0) {
            const uint32_t step_k = schedule_.group_step_k_blocks, part_m = schedule_.group_part_m_tiles;
            if (group * nt_ > schedule_.psum_banks)
                throw std::invalid_argument("the first group needs more PSUM banks than the schedule may use");
            if (step_k == 0 || kt_ % step_k) throw std::invalid_argument("group_step_k_blocks must divide the k-blocks");
            if (part_m == 0 || group % part_m) throw std::invalid_argument("group_part_m_tiles must divide the group");
            for (uint32_t k0 = 0; k0 < kt_; k0 += step_k) {
                Step step;
                for (uint32_t k = k0; k < k0 + step_k; ++k)
                    for (uint32_t m = 0; m < group; m += part_m)
                        add_part(step, k, 1, m, part_m);
                // The contraction outermost, then the n-tiles: one B tile serves the whole group in a row.
                for (uint32_t k = k0; k < k0 + step_k; ++k)
                    for (uint32_t n = 0; n < nt_; ++n)
                        for (uint32_t m = 0; m < group; ++m)
                            step.matmuls.push_back({{m, n * tn_, tn_}, k, part_holding(step, k, m)});
                steps_.push_back(std::move(step));
            }
        }
        const uint32_t parts = schedule_.column_parts;
        if (parts == 0 || kt_ % parts) throw std::invalid_argument("column_parts must divide the k-blocks");
        const uint32_t part_k = kt_ / parts, per_step = schedule_.column_step_m_tiles;
        if (per_step == 0) throw std::invalid_argument("column_step_m_tiles must be at least 1");
        for (uint32_t m0 = group; m0 < mt_; m0 += per_step) {
            Step step;
            const uint32_t m_end = std::min(mt_, m0 + per_step);
            for (uint32_t m = m0; m < m_end; ++m)
                for (uint32_t k = 0; k < kt_; k += part_k) add_part(step, k, part_k, m, 1);
            // One output tile after the other, each over the whole contraction.
            for (uint32_t m = m0; m < m_end; ++m) {
                uint32_t column = 0;
                for (uint32_t width : output_widths(m)) {
                    for (uint32_t k = 0; k < kt_; ++k)
                        step.matmuls.push_back({{m, column, width}, k, part_holding(step, k, m)});
                    column += width;
                }
            }
            steps_.push_back(std::move(step));
        }
    }

    // ---- program pieces ---------------------------------------------------------------------------

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
        signaled_.push_back(0);
        return index;
    }

    void allocate_semaphores() {
        for (uint32_t k = 0; k < kt_; ++k)
            for (uint32_t n = 0; n < nt_; ++n)
                b_ready_.push_back(semaphore("b_ready" + std::to_string(k) + "_" + std::to_string(n)));
        for (uint32_t s = 0; s < schedule_.a_slots; ++s) {
            for (uint32_t p = 0; p < max_parts_; ++p)
                a_ready_.push_back(semaphore("a_ready" + std::to_string(s) + "_" + std::to_string(p)));
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
        stored_value_.assign(schedule_.out_slots, 0);
    }

    // Streams live in a map until the end (stable references while others are added).
    isa::InstructionList& stream(Engine engine, uint32_t queue = 0) {
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

    // One transfer between an on-chip region and a DRAM block of the same rows, split by partitions
    // over the DMA engines: slice e on queue lane * engines + e, i.e. on engine e. Every slice signals
    // `signal`; returns the value `signal` reaches once the whole transfer is done.
    uint32_t transfer(uint32_t lane, const AccessPattern& on_chip_whole, const AccessPattern& dram_whole, bool to_dram,
                      uint16_t wait, uint32_t wait_value, uint16_t signal) {
        const uint32_t partitions = on_chip_whole.partition_count;
        const uint32_t slices = std::min(engines_, partitions);
        uint32_t first = 0;
        for (uint32_t e = 0; e < slices; ++e) {
            const uint32_t rows = partitions / slices + (e < partitions % slices ? 1 : 0);
            AccessPattern chip = on_chip_whole, dram = dram_whole;
            chip.partition_start += first;
            chip.partition_count = rows;
            dram.offset += uint64_t(first) * dram.partition_stride * isa::size_in_bytes(dram.dtype);
            dram.partition_count = rows;
            Instruction copy;
            copy.opcode = Opcode::DmaCopy;
            copy.set(isa::fields::DmaCopy::dst, to_dram ? dram : chip);
            copy.set(isa::fields::DmaCopy::src, to_dram ? chip : dram);
            stream(Engine::Dma, lane * engines_ + e).push_back(with_sync(copy, wait, wait_value, signal));
            first += rows;
        }
        signaled_[signal] += slices;
        return signaled_[signal];
    }

    uint32_t load(const AccessPattern& chip, const AccessPattern& dram, uint16_t wait, uint32_t wait_value,
                  uint16_t signal) {
        return transfer(next_load_lane_++ % schedule_.load_lanes, chip, dram, false, wait, wait_value, signal);
    }

    uint32_t store(const AccessPattern& chip, const AccessPattern& dram, uint16_t wait, uint32_t wait_value,
                   uint16_t signal) {
        const uint32_t lane = schedule_.load_lanes + next_store_lane_++ % schedule_.store_lanes;
        return transfer(lane, chip, dram, true, wait, wait_value, signal);
    }

    // B stays in SBUF: k-block k (rows k*TK..) at b_base + k * N elements; one transfer per [TK, TN] tile.
    uint32_t load_b_tile(uint32_t k, uint32_t n) {
        return load(on_chip(MemorySpace::Sbuf, 0, tk_, b_base_ + (uint64_t(k) * shape_.n + n * tn_) * kBf16Bytes,
                            DType::Bf16, tn_),
                    dram_block(kB, shape_.n, k * tk_, tk_, n * tn_, tn_, DType::Bf16), isa::kNoSemaphore, 0,
                    b_ready_[k * nt_ + n]);
    }

    uint64_t slot_base(uint32_t slot) const { return a_base_ + slot * slot_bytes_; }

    // Rows of k-blocks [k_first, +k_blocks) of AT, columns of the part's m-tiles, into its place in the slot.
    uint32_t load_at_part(uint32_t slot, uint32_t index, const AtPart& part, uint16_t wait, uint32_t wait_value) {
        AccessPattern dram = dram_block(kAt, shape_.m, part.k_first * tk_, tk_, part.m_first * tm_,
                                        part.m_tiles * tm_, DType::Bf16);
        if (part.k_blocks > 1) {
            dram.dim_count = 2;
            dram.dims[1] = dram.dims[0];
            dram.dims[0] = {int32_t(tk_ * shape_.m), part.k_blocks};
        }
        const AccessPattern chip = on_chip(MemorySpace::Sbuf, 0, tk_, slot_base(slot) + part.offset, DType::Bf16,
                                           part.k_blocks * part.m_tiles * tm_);
        return load(chip, dram, wait, wait_value, a_ready_[slot * max_parts_ + index]);
    }

    // ---- the streams ------------------------------------------------------------------------------

    // Walks the steps in order. Loads are issued the first time a matmul needs them, so each lane's
    // queue holds them in need order; a slot's reload waits until its previous step has streamed.
    void schedule_steps() {
        isa::InstructionList& pe = stream(Engine::Pe);
        std::vector<uint32_t> b_value(size_t(kt_) * nt_, 0);
        std::vector<uint32_t> bank_uses(schedule_.psum_banks, 0);
        std::map<std::pair<uint32_t, uint32_t>, uint32_t> open_banks;  // (m, column) -> bank
        uint32_t next_bank = 0;
        for (uint32_t s = 0; s < steps_.size(); ++s) {
            const Step& step = steps_[s];
            const uint32_t slot = s % schedule_.a_slots, use = s / schedule_.a_slots;
            std::vector<bool> part_loaded(step.parts.size(), false);
            struct Finished {
                OutputTile tile;
                uint32_t bank, bank_use;
            };
            std::vector<Finished> finished;
            for (const Matmul& mm : step.matmuls) {
                const AtPart& part = step.parts[mm.part];
                if (!part_loaded[mm.part]) {
                    const uint32_t ready = load_at_part(slot, mm.part, part, use ? step_done_[slot] : isa::kNoSemaphore, use);
                    pe.push_back(nop(a_ready_[slot * max_parts_ + mm.part], ready));
                    part_loaded[mm.part] = true;
                }
                const uint32_t b_tile = mm.k * nt_ + mm.tile.column / tn_;
                if (!b_value[b_tile]) {
                    b_value[b_tile] = load_b_tile(mm.k, mm.tile.column / tn_);
                    pe.push_back(nop(b_ready_[b_tile], b_value[b_tile]));
                }
                const auto key = std::make_pair(mm.tile.m, mm.tile.column);
                if (mm.k == 0) {
                    const uint32_t bank = next_bank++ % schedule_.psum_banks;
                    if (bank_uses[bank] > 0) pe.push_back(nop(bank_free_[bank], bank_uses[bank]));
                    open_banks[key] = bank;
                }
                const uint32_t bank = open_banks.at(key);
                const bool last = mm.k + 1 == kt_;
                const uint64_t b_offset = b_base_ + (uint64_t(mm.k) * shape_.n + mm.tile.column) * kBf16Bytes;
                Instruction inst;
                inst.opcode = Opcode::Matmul;
                inst.set(isa::fields::Matmul::dst,
                         on_chip(MemorySpace::Psum, 0, tm_, uint64_t(bank) * bank_bytes_, DType::Fp32, mm.tile.width));
                inst.set(isa::fields::Matmul::stationary,
                         on_chip(MemorySpace::Sbuf, 0, tk_, slot_base(slot) + stationary_offset(part, mm.k, mm.tile.m),
                                 DType::Bf16, tm_));
                inst.set(isa::fields::Matmul::moving,
                         on_chip(MemorySpace::Sbuf, 0, tk_, b_offset, DType::Bf16, mm.tile.width));
                inst.set_enum(isa::fields::Matmul::acc,
                              mm.k == 0 ? isa::AccumulateMode::Overwrite : isa::AccumulateMode::Accumulate);
                pe.push_back(with_sync(inst, isa::kNoSemaphore, 0, last ? bank_full_[bank] : isa::kNoSemaphore));
                if (last) {
                    finished.push_back({mm.tile, bank, bank_uses[bank]++});
                    open_banks.erase(key);
                }
            }
            // The step's AT is consumed once its last matmul has streamed.
            pe.push_back(nop(isa::kNoSemaphore, 0, step_done_[slot]));
            for (const Finished& f : finished) evacuate_and_store(f.tile, f.bank, f.bank_use);
        }
    }

    void evacuate_and_store(const OutputTile& tile, uint32_t bank, uint32_t bank_use) {
        const uint32_t index = tiles_evacuated_++;
        const Engine engine = evacuators_[index % evacuators_.size()];
        const uint32_t slot = index % schedule_.out_slots, use = index / schedule_.out_slots;
        const AccessPattern out =
            on_chip(MemorySpace::Sbuf, 0, tm_, out_base_ + slot * out_slot_bytes_, DType::Bf16, tile.width);
        const AccessPattern psum =
            on_chip(MemorySpace::Psum, 0, tm_, uint64_t(bank) * bank_bytes_, DType::Fp32, tile.width);
        isa::InstructionList& evac = stream(engine);
        if (use > 0) evac.push_back(nop(stored_[slot], stored_value_[slot]));
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
        stored_value_[slot] = store(out, dram_block(kC, shape_.n, tile.m * tm_, tm_, tile.column, tile.width, DType::Bf16),
                                    out_ready_[slot], use + 1, stored_[slot]);
    }

    const config::NeuronCoreSpec& core_;
    GemmShape shape_;
    GemmSchedule schedule_;
    isa::Container container_;
    std::map<std::pair<Engine, uint32_t>, isa::InstructionStream> streams_;
    std::vector<Engine> evacuators_;
    std::vector<Step> steps_;
    uint32_t tk_ = 0, tm_ = 0, tn_ = 0, mt_ = 0, kt_ = 0, nt_ = 0, engines_ = 0, max_parts_ = 0;
    uint64_t bank_bytes_ = 0, b_base_ = 0, a_base_ = 0, slot_bytes_ = 0, out_base_ = 0, out_slot_bytes_ = 0;
    std::vector<uint16_t> b_ready_, a_ready_, step_done_, bank_full_, bank_free_, out_ready_, stored_;
    std::vector<uint32_t> signaled_;      // per semaphore: DMA slices issued so far that signal it
    std::vector<uint32_t> stored_value_;  // per output slot: `stored` once its latest store is done
    uint32_t next_load_lane_ = 0, next_store_lane_ = 0, tiles_evacuated_ = 0;
};

}  // namespace

GemmSchedule GemmSchedule::double_buffered() { return GemmSchedule{}; }

GemmSchedule GemmSchedule::single_buffered() {
    GemmSchedule s;
    s.group_m_tiles = 0;
    s.a_slots = 1;
    s.out_slots = 1;
    s.psum_banks = 1;
    s.column_step_m_tiles = 1;
    s.tail_min_n = 0;
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
