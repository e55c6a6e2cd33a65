#include "isa/validator.h"

#include <algorithm>
#include <mutex>
#include <string>

#include "isa/opcode_table.h"

namespace nsim::isa {
namespace {

using Wide = __int128;  // byte ranges of hostile operands overflow 64 bits

std::string core_name(uint32_t generation) { return "NeuronCore-v" + std::to_string(generation); }

std::string spaces_text(uint32_t mask) {
    std::string text;
    for (uint32_t s = uint32_t(MemorySpace::Sbuf); is_valid_space(s); ++s) {
        if (!(mask & table_names::space_bit(MemorySpace(s)))) continue;
        if (!text.empty()) text += " or ";
        text += name_of(MemorySpace(s));
    }
    return text;
}

std::string wide_text(Wide v) {
    if (v == 0) return "0";
    const bool negative = v < 0;
    std::string digits;
    for (; v != 0; v /= 10) digits.insert(digits.begin(), char('0' + int(negative ? -(v % 10) : v % 10)));
    return negative ? "-" + digits : digits;
}

std::string range_text(Wide begin, Wide end) { return "[" + wide_text(begin) + ", " + wide_text(end) + ")"; }

class StreamChecker {
public:
    StreamChecker(const Container& c, const GenerationLimits& l, const InstructionStream& s,
                  std::vector<Diagnostic>& out)
        : container_(c), limits_(l), stream_(s), out_(out) {}

    void run() {
        const std::string engine = queue_name(stream_.engine, stream_.queue);
        if (!(limits_.engines & table_names::engine_bit(stream_.engine))) {
            report({}, core_name(limits_.generation) + " has no " + std::string(name_of(stream_.engine)) + " engine");
            return;
        }
        if (stream_.engine == Engine::Dma && stream_.queue >= limits_.dma_queues) {
            report({}, "DMA queue " + std::to_string(stream_.queue) + " out of range (the core has " +
                           std::to_string(limits_.dma_queues) + ")");
            return;
        }
        for (size_t i = 0; i < stream_.instructions.size(); ++i) check(i, stream_.instructions[i]);
    }

private:
    void report(std::optional<size_t> instruction, std::string message) {
        Diagnostic d;
        d.section = stream_.section;
        d.section_description = describe(stream_);
        d.instruction = instruction;
        d.message = std::move(message);
        out_.push_back(std::move(d));
    }

    // `field`: the operand naming the semaphore, or null for the instruction's own wait or signal
    // (`what`). Labels are built only for a report: validation runs over every instruction.
    void check_semaphore(size_t i, const char* what, const FieldSpec* field, uint32_t index) {
        if (index < limits_.semaphores) return;
        const std::string label = field ? "operand '" + std::string(field->name) + "': semaphore" : std::string(what);
        report(i, label + " " + std::to_string(index) + " out of range (the core has " +
                      std::to_string(limits_.semaphores) + ")");
    }

    void check(size_t i, const Instruction& inst) {
        const OpcodeInfo& op = info(inst.opcode);
        if (!op.runs_on(stream_.engine)) {
            report(i, "'" + std::string(op.mnemonic) + "' does not run on the " +
                          std::string(name_of(stream_.engine)) + " engine");
        }
        if (inst.sync.wait_semaphore != kNoSemaphore) check_semaphore(i, "wait semaphore", nullptr, inst.sync.wait_semaphore);
        if (inst.sync.signal_semaphore != kNoSemaphore)
            check_semaphore(i, "signal semaphore", nullptr, inst.sync.signal_semaphore);
        bool operands_ok = true;
        for (size_t f = 0; f < op.field_count; ++f) {
            const FieldSpec& field = op.fields[f];
            if (field.kind == FieldKind::Semaphore)
                check_semaphore(i, nullptr, &field, inst.u32(f));
            if (field.kind == FieldKind::AccessPattern)
                operands_ok = check_operand(i, op, field, inst.ap(f)) && operands_ok;
        }
        if (operands_ok) check_shapes(i, inst);
    }

    bool check_operand(size_t i, const OpcodeInfo& op, const FieldSpec& field, const AccessPattern& ap) {
        const auto label = [&] { return "operand '" + std::string(field.name) + "'"; };
        if (!ap.present()) {
            if (!field.optional) {
                report(i, label() + " is none but '" + std::string(op.mnemonic) + "' needs it");
                return false;
            }
            return true;
        }
        if (!(field.spaces & table_names::space_bit(ap.space))) {
            report(i, label() + " is in " + std::string(name_of(ap.space)) + ", '" + std::string(op.mnemonic) +
                          "' takes it from " + spaces_text(field.spaces));
            return false;
        }
        if (ap.partition_count == 0) {
            report(i, label() + ": partition count is 0");
            return false;
        }
        Wide elements = ap.partition_count;  // each factor < 2^33, so checked step by step it never overflows
        for (size_t d = 0; d < ap.dim_count; ++d) {
            if (ap.dims[d].count == 0) {
                report(i, label() + ": free dimension " + std::to_string(d) + " has count 0");
                return false;
            }
            elements *= ap.dims[d].count;
            if (elements > Wide(kMaxOperandElements)) {
                report(i, label() + ": names more than " + std::to_string(kMaxOperandElements) +
                              " elements (the most one operand may)");
                return false;
            }
        }
        const Wide element = size_in_bytes(ap.dtype);
        Wide low = ap.min_free_index(), high = ap.max_free_index();
        if (is_partitioned(ap.space)) {
            const bool sbuf = ap.space == MemorySpace::Sbuf;
            const uint32_t partitions = sbuf ? limits_.sbuf_partitions : limits_.psum_partitions;
            const uint64_t bytes = sbuf ? limits_.sbuf_bytes_per_partition : limits_.psum_bytes_per_partition;
            const auto space = [&] { return std::string(name_of(ap.space)); };
            if (ap.tensor != kNoTensor || ap.partition_stride != 0) {
                report(i, label() + ": a " + space() + " operand has no tensor and no partition stride");
                return false;
            }
            if (Wide(ap.partition_start) + ap.partition_count > partitions) {
                report(i, label() + ": partitions " +
                              range_text(ap.partition_start, Wide(ap.partition_start) + ap.partition_count) +
                              " outside " + space() + " (" + std::to_string(partitions) + " partitions)");
                return false;
            }
            const Wide begin = Wide(ap.offset) + low * element, end = Wide(ap.offset) + (high + 1) * element;
            if (begin < 0 || end > Wide(bytes)) {
                report(i, label() + ": bytes " + range_text(begin, end) + " of each partition outside " + space() + " (" +
                              std::to_string(bytes) + " bytes per partition)");
                return false;
            }
            return true;
        }
        const auto space = [&] { return std::string(name_of(ap.space)); };
        if (ap.tensor >= container_.tensors.size()) {
            report(i, label() + ": tensor " + std::to_string(ap.tensor) + " does not exist (the table has " +
                          std::to_string(container_.tensors.size()) + ")");
            return false;
        }
        const TensorInfo& tensor = container_.tensors[ap.tensor];
        const TensorLocation wanted = ap.space == MemorySpace::Host ? TensorLocation::Host : TensorLocation::Device;
        if (tensor.location != wanted) {
            report(i, label() + ": tensor '" + tensor.name + "' is in " + std::string(name_of(tensor.location)) +
                          " memory, the operand says " + space());
            return false;
        }
        // The runtime may keep a copy of the weights next to each core, so a write would reach one copy only.
        if (field.access == FieldAccess::Write && tensor.role == TensorRole::Weight) {
            report(i, label() + ": writes weight tensor '" + tensor.name + "' (weights are read-only)");
            return false;
        }
        if (ap.partition_start != 0) {
            report(i, label() + ": partition start must be 0 in " + space() + " (rows start at the offset)");
            return false;
        }
        const Wide rows_span = Wide(ap.partition_stride) * (Wide(ap.partition_count) - 1);
        if (rows_span < 0) low += rows_span;
        else high += rows_span;
        const Wide begin = Wide(ap.offset) + low * element, end = Wide(ap.offset) + (high + 1) * element;
        if (begin < 0 || end > Wide(tensor.size_bytes())) {
            report(i, label() + ": bytes " + range_text(begin, end) + " outside tensor '" + tensor.name + "' (" +
                          std::to_string(tensor.size_bytes()) + " bytes)");
            return false;
        }
        return true;
    }

    void limit(size_t i, const char* what, uint64_t value, uint32_t most) {
        if (value > most)
            report(i, std::string(what) + " " + std::to_string(value) + " exceeds " + core_name(limits_.generation) +
                          "'s limit of " + std::to_string(most));
    }

    void same(size_t i, const Instruction& inst, size_t a, size_t b) {
        const OpcodeInfo& op = info(inst.opcode);
        const AccessPattern &x = inst.ap(a), &y = inst.ap(b);
        if (!x.present() || !y.present()) return;
        const auto name = [&](size_t f) { return std::string(op.fields[f].name); };
        if (x.partition_count != y.partition_count)
            report(i, "operand '" + name(b) + "' has " + std::to_string(y.partition_count) + " partitions, '" + name(a) +
                          "' has " + std::to_string(x.partition_count));
        else if (x.free_elements() != y.free_elements())
            report(i, "operand '" + name(b) + "' has " + std::to_string(y.free_elements()) + " elements per partition, '" +
                          name(a) + "' has " + std::to_string(x.free_elements()));
    }

    void check_cores(size_t i, uint32_t first, uint32_t count) {
        if (count == 0) report(i, "core_count is 0");
        else if (uint64_t(first) + count > container_.cores_needed)
            report(i, "cores " + range_text(first, Wide(first) + count) + " beyond the program's " +
                          std::to_string(container_.cores_needed) + " cores");
    }

    void check_shapes(size_t i, const Instruction& inst) {
        switch (inst.opcode) {
            case Opcode::Matmul: {
                namespace F = fields::Matmul;
                const AccessPattern &st = inst.ap(F::stationary), &mv = inst.ap(F::moving), &dst = inst.ap(F::dst);
                limit(i, "matmul contraction (partitions)", st.partition_count, limits_.max_contraction);
                limit(i, "matmul stationary tile free size", st.free_elements(), limits_.max_stationary_free);
                limit(i, "matmul moving tile free size", mv.free_elements(), limits_.max_moving_free);
                for (std::string& problem : matmul_shape_problems(dst, st, mv)) report(i, std::move(problem));
                break;
            }
            case Opcode::Transpose: {
                namespace F = fields::Transpose;
                const AccessPattern &src = inst.ap(F::src), &dst = inst.ap(F::dst);
                if (stream_.engine == Engine::Pe) {
                    limit(i, "transpose source partitions", src.partition_count, limits_.max_contraction);
                    limit(i, "transpose source free size", src.free_elements(), limits_.max_stationary_free);
                }
                if (dst.partition_count != src.free_elements() || dst.free_elements() != src.partition_count)
                    report(i, "dst is " + std::to_string(dst.partition_count) + "x" +
                                  std::to_string(dst.free_elements()) + ", the transpose of a " +
                                  std::to_string(src.partition_count) + "x" + std::to_string(src.free_elements()) +
                                  " source is not");
                break;
            }
            case Opcode::Activation: same(i, inst, fields::Activation::dst, fields::Activation::src); break;
            case Opcode::TensorTensor:
                same(i, inst, fields::TensorTensor::dst, fields::TensorTensor::src0);
                same(i, inst, fields::TensorTensor::dst, fields::TensorTensor::src1);
                break;
            case Opcode::TensorScalar: same(i, inst, fields::TensorScalar::dst, fields::TensorScalar::src); break;
            case Opcode::TensorPartitionScalar:
                same(i, inst, fields::TensorPartitionScalar::dst, fields::TensorPartitionScalar::src);
                break;
            case Opcode::Select:
                same(i, inst, fields::Select::dst, fields::Select::predicate);
                same(i, inst, fields::Select::dst, fields::Select::on_true);
                same(i, inst, fields::Select::dst, fields::Select::on_false);
                break;
            case Opcode::AffineSelect: same(i, inst, fields::AffineSelect::dst, fields::AffineSelect::src); break;
            case Opcode::TensorCopy: same(i, inst, fields::TensorCopy::dst, fields::TensorCopy::src); break;
            case Opcode::DmaCopy: {
                const AccessPattern &dst = inst.ap(fields::DmaCopy::dst), &src = inst.ap(fields::DmaCopy::src);
                const Wide d = Wide(dst.partition_count) * dst.free_elements();
                const Wide s = Wide(src.partition_count) * src.free_elements();
                if (d != s)
                    report(i, "dst has " + wide_text(d) + " elements, src has " + wide_text(s));
                break;
            }
            case Opcode::DmaGather: check_gather(i, inst); break;
            case Opcode::AllReduce:
                check_cores(i, inst.u32(fields::AllReduce::first_core), inst.u32(fields::AllReduce::core_count));
                break;
            case Opcode::AllGather:
                check_cores(i, inst.u32(fields::AllGather::first_core), inst.u32(fields::AllGather::core_count));
                break;
            case Opcode::ReduceScatter:
                check_cores(i, inst.u32(fields::ReduceScatter::first_core),
                            inst.u32(fields::ReduceScatter::core_count));
                break;
            case Opcode::Barrier:
                check_cores(i, inst.u32(fields::Barrier::first_core), inst.u32(fields::Barrier::core_count));
                break;
            case Opcode::Send: check_cores(i, inst.u32(fields::Send::peer_core), 1); break;
            case Opcode::Recv: check_cores(i, inst.u32(fields::Recv::peer_core), 1); break;
            case Opcode::SetRounding:
                if (inst.u32(fields::SetRounding::mode) > 1)
                    report(i, "rounding mode " + std::to_string(inst.u32(fields::SetRounding::mode)) +
                                  " is neither 0 (nearest even) nor 1 (stochastic)");
                break;
            case Opcode::SetRngSeed: {
                const AccessPattern& state = inst.ap(fields::SetRngSeed::state);
                if (state.dtype != DType::Int32 || uint64_t(state.partition_count) * state.free_elements() != 2)
                    report(i, "operand 'state' must be two int32 elements (seed, execution)");
                break;
            }
            case Opcode::Dropout: {
                same(i, inst, fields::Dropout::dst, fields::Dropout::src);
                const float p = inst.f32(fields::Dropout::probability);
                if (!(p >= 0.0f && p <= 1.0f)) report(i, "dropout probability " + std::to_string(p) + " is outside [0, 1]");
                break;
            }
            default: break;
        }
    }

    // One int32 index per dst row, and table rows as wide as dst rows. The values of the indices are
    // the execution's to check (they are data).
    void check_gather(size_t i, const Instruction& inst) {
        const AccessPattern &dst = inst.ap(fields::DmaGather::dst), &table = inst.ap(fields::DmaGather::table),
                            &indices = inst.ap(fields::DmaGather::indices);
        if (indices.dtype != DType::Int32)
            report(i, "operand 'indices' is " + std::string(name_of(indices.dtype)) + ", dma_gather takes int32 indices");
        const Wide count = Wide(indices.partition_count) * indices.free_elements();
        if (count != dst.partition_count)
            report(i, "operand 'indices' has " + wide_text(count) + " elements, dst has " +
                          std::to_string(dst.partition_count) + " rows (one index per row)");
        if (dst.free_elements() != table.free_elements())
            report(i, "dst rows have " + std::to_string(dst.free_elements()) + " elements, table rows " +
                          std::to_string(table.free_elements()));
    }

    const Container& container_;
    const GenerationLimits& limits_;
    const InstructionStream& stream_;
    std::vector<Diagnostic>& out_;
};

}  // namespace

std::string Diagnostic::text() const {
    std::string where;
    if (section) where = "section " + std::to_string(*section) + " (" + section_description + ")";
    else where = "header";
    if (instruction) where += ", instruction " + std::to_string(*instruction);
    return where + ": " + message;
}

namespace {

bool same_limits(const GenerationLimits& a, const GenerationLimits& b) {
    return a.generation == b.generation && a.engines == b.engines && a.sbuf_partitions == b.sbuf_partitions &&
           a.sbuf_bytes_per_partition == b.sbuf_bytes_per_partition && a.psum_partitions == b.psum_partitions &&
           a.psum_bytes_per_partition == b.psum_bytes_per_partition && a.max_contraction == b.max_contraction &&
           a.max_stationary_free == b.max_stationary_free && a.max_moving_free == b.max_moving_free &&
           a.semaphores == b.semaphores && a.dma_queues == b.dma_queues;
}

// The last program validated in this process and what was found. A tool checks a program before
// it touches the host (to say what is wrong in the program's terms) and the runtime's load checks
// it again, as nrt_load must: the second check of the same program finds the answer here. "The
// same" is everything the checks read: the limits, the cores, every tensor but its contents, and
// each stream's place and instructions; instructions by identity (a shared, immutable list body,
// which the record keeps alive, so an equal address cannot be another list).
struct LastValidation {
    GenerationLimits limits;
    uint32_t generation = 0, cores_needed = 0;
    std::vector<TensorInfo> tensors;  // without data
    std::vector<InstructionStream> streams;
    std::vector<Diagnostic> found;

    bool matches(const Container& c, const GenerationLimits& l) const {
        if (!same_limits(limits, l) || generation != c.generation || cores_needed != c.cores_needed ||
            tensors.size() != c.tensors.size() || streams.size() != c.streams.size())
            return false;
        for (size_t i = 0; i < tensors.size(); ++i) {
            const TensorInfo& a = tensors[i];
            const TensorInfo& b = c.tensors[i];
            if (a.name != b.name || a.role != b.role || a.dtype != b.dtype || a.location != b.location ||
                a.shape != b.shape || a.offset != b.offset)
                return false;
        }
        for (size_t i = 0; i < streams.size(); ++i) {
            const InstructionStream& a = streams[i];
            const InstructionStream& b = c.streams[i];
            if (a.graph != b.graph || a.core != b.core || a.engine != b.engine || a.queue != b.queue || a.section != b.section ||
                !a.instructions.shares_body_with(b.instructions))
                return false;
        }
        return true;
    }
};

LastValidation& last_validation() {
    static LastValidation last;
    return last;
}

std::vector<Diagnostic> check_streams(const Container& c, const GenerationLimits& limits) {
    std::vector<Diagnostic> out;
    if (c.generation != limits.generation) {
        Diagnostic d;
        d.message = "the program is for " + core_name(c.generation) + ", this machine has " +
                    core_name(limits.generation);
        out.push_back(std::move(d));
        return out;
    }
    // A stream's findings depend on its instructions, engine and queue, never on its core; a
    // data-parallel program runs one shared instruction list on every core (BERT-large on 32 cores:
    // 32 times), so a stream that shares its list with an earlier stream of the same queue takes that
    // stream's findings under its own name instead of checking the same instructions again.
    struct Checked {
        const InstructionStream* stream;
        size_t first, last;  // its findings in `out`
    };
    std::vector<Checked> checked;
    for (const auto& s : c.streams) {
        const auto same = std::find_if(checked.begin(), checked.end(), [&](const Checked& k) {
            return k.stream->engine == s.engine && k.stream->queue == s.queue &&
                   k.stream->instructions.shares_body_with(s.instructions);
        });
        const size_t first = out.size();
        if (same == checked.end()) {
            StreamChecker(c, limits, s, out).run();
            checked.push_back({&s, first, out.size()});
            continue;
        }
        for (size_t d = same->first; d < same->last; ++d) {
            Diagnostic copy = out[d];
            copy.section = s.section;
            copy.section_description = describe(s);
            out.push_back(std::move(copy));
        }
    }
    return out;
}

}  // namespace

std::vector<std::string> matmul_shape_problems(const AccessPattern& dst, const AccessPattern& stationary,
                                               const AccessPattern& moving) {
    std::vector<std::string> problems;
    if (moving.partition_count != stationary.partition_count)
        problems.push_back("moving has " + std::to_string(moving.partition_count) + " partitions, stationary " +
                           std::to_string(stationary.partition_count));
    if (dst.partition_count != stationary.free_elements())
        problems.push_back("dst has " + std::to_string(dst.partition_count) + " partitions, the stationary free size is " +
                           std::to_string(stationary.free_elements()));
    if (dst.free_elements() != moving.free_elements())
        problems.push_back("dst has " + std::to_string(dst.free_elements()) +
                           " elements per partition, the moving free size is " + std::to_string(moving.free_elements()));
    return problems;
}

std::vector<Diagnostic> validate(const Container& c, const GenerationLimits& limits) {
    static std::mutex lock;  // tests may validate on several threads
    const std::lock_guard<std::mutex> guard(lock);
    LastValidation& last = last_validation();
    if (last.matches(c, limits)) return last.found;
    std::vector<Diagnostic> found = check_streams(c, limits);
    last = LastValidation{limits, c.generation, c.cores_needed, {}, c.streams, found};
    for (const TensorInfo& t : c.tensors)
        last.tensors.push_back(TensorInfo{t.name, t.role, t.dtype, t.location, t.shape, t.offset, {}});
    return found;
}

}  // namespace nsim::isa
