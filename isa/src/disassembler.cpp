#include <cmath>
#include <fmt/format.h>

#include "isa/text_format.h"
#include "text_names.h"

namespace nsim::isa {
namespace {

// Finite floats print in the shortest form that reads back to the same bits; anything else
// (NaN payloads, infinities) as its bit pattern, which the assembler accepts for f32 fields.
std::string f32_text(uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    if (!std::isfinite(value)) return fmt::format("0x{:08x}", bits);
    return fmt::format("{}", value);
}

class Disassembler {
public:
    explicit Disassembler(const Container& c) : c_(c) {
        for (const auto& s : c.semaphore_names) semaphore_names_[s.index] = s.name;
    }

    std::string run() {
        out_ += "# neuron-sim program\n";
        out_ += fmt::format(".target v{}\n.cores {}\n", c_.generation, c_.cores_needed);
        for (const auto& [key, value] : c_.metadata) out_ += fmt::format(".meta {} {}\n", name_text(key), quoted_text(value));
        for (const auto& t : c_.tensors) tensor(t);
        for (const auto& s : c_.semaphore_names) out_ += fmt::format(".sem {} {}\n", name_text(s.name), s.index);
        // Every graph named in index order first (one without streams keeps its place), then each one's streams.
        for (const std::string& g : c_.graphs) out_ += fmt::format(".graph {}\n", name_text(g));
        bool first = true;
        uint32_t core = 0, graph = 0;
        for (const auto& s : c_.streams) {
            const bool new_graph = !c_.graphs.empty() && (first || s.graph != graph);
            if (new_graph) out_ += fmt::format("\n.graph {}", name_text(c_.graphs.at(s.graph)));
            if (first || new_graph || s.core != core) out_ += fmt::format("\n.core {}\n", s.core);
            first = false;
            core = s.core;
            graph = s.graph;
            for (const auto& inst : s.instructions) instruction(s, inst);
        }
        return out_;
    }

private:
    void tensor(const TensorInfo& t) {
        std::string shape;
        for (size_t i = 0; i < t.shape.size(); ++i) shape += fmt::format("{}{}", i ? ", " : "", t.shape[i]);
        out_ += fmt::format(".tensor {} {} {} [{}] {} 0x{:x}\n", name_text(t.name), name_of(t.role), name_of(t.dtype),
                            shape, name_of(t.location), t.offset);
        constexpr size_t bytes_per_line = 64;
        for (size_t at = 0; at < t.data.size(); at += bytes_per_line) {
            std::string hex;
            for (size_t i = at; i < t.data.size() && i < at + bytes_per_line; ++i) hex += fmt::format("{:02x}", t.data[i]);
            out_ += fmt::format(".data {} {}\n", name_text(t.name), hex);
        }
    }

    std::string semaphore(uint32_t index) const {
        auto it = semaphore_names_.find(index);
        return it != semaphore_names_.end() ? name_text(it->second) : fmt::format("${}", index);
    }

    std::string access_pattern(const AccessPattern& ap) const {
        if (!ap.present()) return "none";
        std::string text = fmt::format("{} {}", name_of(ap.dtype), name_of(ap.space));
        std::string dims;
        if (is_partitioned(ap.space)) {
            text += fmt::format("[{}:{}]", ap.partition_start, uint64_t(ap.partition_start) + ap.partition_count);
        } else {
            const std::string name = ap.tensor < c_.tensors.size() ? name_text(c_.tensors[ap.tensor].name)
                                                                   : fmt::format("#{}", ap.tensor);
            text += ":" + name;
            dims = fmt::format("[{},{}]", ap.partition_stride, ap.partition_count);
        }
        for (size_t d = 0; d < ap.dim_count; ++d)
            dims += fmt::format("{}[{},{}]", dims.empty() ? "" : ",", ap.dims[d].stride, ap.dims[d].count);
        return text + fmt::format(" +{} [{}]", ap.offset, dims);
    }

    std::string field_value(const FieldSpec& field, const Operand& value) const {
        switch (field.kind) {
            case FieldKind::AccessPattern: return access_pattern(value.ap());
            case FieldKind::F32: return f32_text(value.bits);
            case FieldKind::I32: return fmt::format("{}", int32_t(value.bits));
            case FieldKind::U32: return fmt::format("{}", value.bits);
            case FieldKind::Activation: return std::string(name_of(ActivationFunction(value.bits)));
            case FieldKind::Alu: return std::string(name_of(AluOp(value.bits)));
            case FieldKind::Reduce: return std::string(name_of(ReduceOp(value.bits)));
            case FieldKind::Accumulate: return std::string(name_of(AccumulateMode(value.bits)));
            case FieldKind::Semaphore: return semaphore(value.bits);
        }
        return "?";
    }

    void instruction(const InstructionStream& s, const Instruction& inst) { out_ += line_of(s, inst) + "\n"; }

public:
    std::string line_of(const InstructionStream& s, const Instruction& inst) const {
        const OpcodeInfo& op = info(inst.opcode);
        std::string line = fmt::format("{} {}", queue_name(s.engine, s.queue), op.mnemonic);
        std::string sep = " ";
        for (size_t f = 0; f < op.field_count; ++f) {
            line += fmt::format("{}{}={}", sep, op.fields[f].name, field_value(op.fields[f], inst.fields[f]));
            sep = ", ";
        }
        if (inst.sync.wait_semaphore != kNoSemaphore) {
            line += fmt::format("{}wait={}>={}", sep, semaphore(inst.sync.wait_semaphore), inst.sync.wait_value);
            sep = ", ";
        }
        if (inst.sync.signal_semaphore != kNoSemaphore)
            line += fmt::format("{}signal={}", sep, semaphore(inst.sync.signal_semaphore));
        return line;
    }

private:
    const Container& c_;
    std::map<uint32_t, std::string> semaphore_names_;
    std::string out_;
};

}  // namespace

std::string disassemble(const Container& c) { return Disassembler(c).run(); }

struct InstructionPrinter::Impl : Disassembler {
    using Disassembler::Disassembler;
};

InstructionPrinter::InstructionPrinter(const Container& program) : impl_(std::make_unique<Impl>(program)) {}
InstructionPrinter::~InstructionPrinter() = default;

std::string InstructionPrinter::line(const InstructionStream& stream, const Instruction& instruction) const {
    return impl_->line_of(stream, instruction);
}

}  // namespace nsim::isa
