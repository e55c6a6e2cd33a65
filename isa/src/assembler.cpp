#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "assembly_tokens.h"
#include "isa/text_format.h"
#include "text_names.h"

namespace nsim::isa {

AssemblyError::AssemblyError(const std::string& file, SourcePosition at, const std::string& text)
    : std::runtime_error(file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": error: " + text),
      position(at),
      message(text) {}

std::string Assembly::locate(const Diagnostic& d) const {
    SourcePosition at = target_position;
    if (d.section && d.instruction) {
        auto it = instruction_positions.find(*d.section);
        if (it != instruction_positions.end() && *d.instruction < it->second.size()) at = it->second[*d.instruction];
    } else if (d.section) {
        auto it = instruction_positions.find(*d.section);
        if (it != instruction_positions.end() && !it->second.empty()) at = it->second.front();
    }
    return AssemblyError(file, at, d.message).what();
}

namespace {

class Assembler : private TokenReader {
public:
    Assembler(std::string_view source, std::string file) : TokenReader(file), source_(source) {
        result_.file = std::move(file);
    }

    Assembly run() {
        size_t start = 0;
        while (start <= source_.size()) {
            size_t end = source_.find('\n', start);
            if (end == std::string_view::npos) end = source_.size();
            std::string_view text = source_.substr(start, end - start);
            if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
            read_line(text);
            if (peek().kind != TokenKind::End) statement();
            start = end + 1;
        }
        finish();
        return std::move(result_);
    }

private:
    // ---- statements -------------------------------------------------------------------------------------
    void statement() {
        const Token& first = peek();
        if (first.kind != TokenKind::Name) fail(first, "expected a directive or an engine queue" + found());
        if (first.text[0] == '.') directive();
        else instruction();
    }

    void directive() {
        const Token d = next();
        if (d.text == ".target") {
            const Token& t = peek();
            if (t.kind != TokenKind::Name || t.text.size() < 2 || t.text[0] != 'v')
                fail(t, "expected a generation like v2" + found());
            char* end = nullptr;
            errno = 0;
            const unsigned long g = std::strtoul(t.text.c_str() + 1, &end, 10);
            if (errno || *end || g == 0 || g > std::numeric_limits<uint32_t>::max())
                fail(t, "bad generation '" + t.text + "'");
            next();
            if (have_target_) fail(d, "second .target directive");
            have_target_ = true;
            result_.target_position = {line(), d.column};
            result_.container.generation = uint32_t(g);
        } else if (d.text == ".cores") {
            const Token at = peek();
            const int64_t n = integer("core count", 1, std::numeric_limits<uint32_t>::max());
            if (seen_core_) fail(at, ".cores after a .core directive");
            result_.container.cores_needed = uint32_t(n);
        } else if (d.text == ".core") {
            const Token at = peek();
            const int64_t n = integer("core", 0, std::numeric_limits<uint32_t>::max());
            if (uint64_t(n) >= result_.container.cores_needed)
                fail(at, "core " + std::to_string(n) + " but .cores says " +
                             std::to_string(result_.container.cores_needed));
            core_ = uint32_t(n);
            seen_core_ = true;
        } else if (d.text == ".graph") {
            // Following instructions belong to graph NAME (FORMAT.md §4.6), named in order of appearance.
            const std::string n = name("graph name");
            auto& graphs = result_.container.graphs;
            if (graphs.empty() && !result_.container.streams.empty())
                fail(d, ".graph after instructions outside any graph (name every graph or none)");
            graph_ = uint32_t(std::find(graphs.begin(), graphs.end(), n) - graphs.begin());
            if (graph_ == graphs.size()) graphs.push_back(n);
        } else if (d.text == ".meta") {
            std::string key = name("metadata key");
            std::string value = string_value("metadata value");
            result_.container.metadata.emplace_back(std::move(key), std::move(value));
        } else if (d.text == ".tensor") {
            tensor_directive();
        } else if (d.text == ".data") {
            data_directive();
        } else if (d.text == ".sem") {
            const Token at = peek();
            std::string n = name("semaphore name");
            const int64_t index = integer("semaphore index", 0, kNoSemaphore - 1);
            if (semaphores_.count(n)) fail(at, "semaphore '" + n + "' is already defined");
            for (const auto& s : result_.container.semaphore_names)
                if (s.index == index) fail(at, "semaphore " + std::to_string(index) + " already has the name '" + s.name + "'");
            semaphores_[n] = uint32_t(index);
            result_.container.semaphore_names.push_back({uint32_t(index), n});
        } else {
            fail(d, "unknown directive '" + d.text + "'");
        }
        expect_end();
    }

    void tensor_directive() {
        const Token at = peek();
        TensorInfo t;
        t.name = name("tensor name");
        if (tensors_.count(t.name)) fail(at, "tensor '" + t.name + "' is already defined");
        const Token role_token = peek();
        const auto role = role_from_name(name("tensor role"));
        if (!role) fail(role_token, "unknown tensor role '" + role_token.text + "' (input, output, weight, scratch, state)");
        t.role = *role;
        t.dtype = dtype();
        expect("[");
        do {
            t.shape.push_back(unsigned64("dimension"));
        } while (accept(","));
        expect("]");
        if (t.shape.size() > 8) fail(at, "tensor rank above 8");
        const Token location_token = peek();
        const auto location = location_from_name(name("tensor location"));
        if (!location) fail(location_token, "unknown tensor location '" + location_token.text + "' (device, host)");
        t.location = *location;
        t.offset = unsigned64("offset");
        tensors_[t.name] = uint32_t(result_.container.tensors.size());
        tensor_positions_.push_back({line(), at.column});
        result_.container.tensors.push_back(std::move(t));
    }

    void data_directive() {
        const Token at = peek();
        const std::string n = name("tensor name");
        auto it = tensors_.find(n);
        if (it == tensors_.end()) fail(at, "unknown tensor '" + n + "'");
        const Token& hex = peek();
        if (hex.kind != TokenKind::Name && hex.kind != TokenKind::Number) fail(hex, "expected hex bytes" + found());
        if (hex.text.size() % 2) fail(hex, "odd number of hex digits");
        auto& data = result_.container.tensors[it->second].data;
        for (size_t i = 0; i < hex.text.size(); i += 2) {
            const int hi = hex_value(hex.text[i]), lo = hex_value(hex.text[i + 1]);
            if (hi < 0 || lo < 0) fail(hex.column + uint32_t(i), "not a hex digit");
            data.push_back(uint8_t(hi * 16 + lo));
        }
        next();
    }

    DType dtype() {
        const Token& t = peek();
        if (t.kind == TokenKind::Name)
            if (auto d = dtype_from_name(t.text)) {
                next();
                return *d;
            }
        fail(t, "expected a data type (fp32, bf16, fp16, fp8e4m3, fp8e5m2, int8, int32, uint8)" + found());
    }

    uint32_t semaphore_ref() {
        const Token& t = peek();
        if (accept("$")) return uint32_t(integer("semaphore index", 0, kNoSemaphore - 1));
        const std::string n = name("semaphore");
        auto it = semaphores_.find(n);
        if (it == semaphores_.end()) fail(t, "unknown semaphore '" + n + "'");
        return it->second;
    }

    AccessPattern access_pattern() {
        AccessPattern ap;
        if (peek().kind == TokenKind::Name && peek().text == "none") {
            next();
            return ap;
        }
        ap.dtype = dtype();
        const Token space_token = peek();
        const auto space = peek().kind == TokenKind::Name ? space_from_name(peek().text) : std::nullopt;
        if (!space) fail(space_token, "expected a memory space (sbuf, psum, dram, host)" + found());
        next();
        ap.space = *space;
        const bool partitioned = is_partitioned(ap.space);
        if (partitioned) {
            expect("[");
            const int64_t first = integer("partition", 0, std::numeric_limits<uint32_t>::max());
            expect(":");
            const Token end_token = peek();
            const int64_t end = integer("partition", 0, int64_t(std::numeric_limits<uint32_t>::max()) * 2);
            if (end <= first) fail(end_token, "empty partition range");
            if (end - first > int64_t(std::numeric_limits<uint32_t>::max())) fail(end_token, "partition range too large");
            expect("]");
            ap.partition_start = uint32_t(first);
            ap.partition_count = uint32_t(end - first);
        } else {
            expect(":");
            const Token t = peek();
            const std::string n = name("tensor name");
            auto it = tensors_.find(n);
            if (it == tensors_.end()) fail(t, "unknown tensor '" + n + "'");
            ap.tensor = it->second;
        }
        if (accept("+")) ap.offset = unsigned64("offset");
        const Token open = peek();
        expect("[");
        std::vector<Dim> dims;
        do {
            expect("[");
            Dim d;
            d.stride = int32_t(integer("stride", std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
            expect(",");
            d.count = uint32_t(integer("count", 0, std::numeric_limits<uint32_t>::max()));
            expect("]");
            dims.push_back(d);
        } while (accept(","));
        expect("]");
        if (!partitioned) {
            // The first pair of a dram/host pattern walks the rows ("partitions") of the transfer.
            ap.partition_stride = dims.front().stride;
            ap.partition_count = dims.front().count;
            dims.erase(dims.begin());
        }
        if (dims.empty() || dims.size() > kMaxFreeDims)
            fail(open, "an access pattern has 1 to " + std::to_string(kMaxFreeDims) + " free [stride,count] pairs" +
                           (partitioned ? "" : " after the row pair"));
        ap.dim_count = uint8_t(dims.size());
        for (size_t d = 0; d < dims.size(); ++d) ap.dims[d] = dims[d];
        return ap;
    }

    float f32_value(uint32_t& bits) {
        const Token& t = peek();
        if (t.kind == TokenKind::Number && (t.text.rfind("0x", 0) == 0)) {
            bits = uint32_t(integer("f32 bit pattern", 0, std::numeric_limits<uint32_t>::max()));
            float v;
            std::memcpy(&v, &bits, sizeof v);
            return v;
        }
        float v = 0;
        if (t.kind == TokenKind::Name && (t.text == "inf" || t.text == "nan")) {
            v = t.text == "inf" ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
        } else {
            if (t.kind != TokenKind::Number) fail(t, "expected a number" + found());
            errno = 0;
            char* end = nullptr;
            v = std::strtof(t.text.c_str(), &end);
            if (*end || t.text.rfind("-0x", 0) == 0) fail(t, "bad number '" + t.text + "'");
            if (errno == ERANGE && std::isinf(v)) fail(t, "'" + t.text + "' is out of range for f32");
        }
        next();
        std::memcpy(&bits, &v, sizeof v);
        return v;
    }

    template <class E>
    uint32_t enum_value(std::optional<E> (*lookup)(std::string_view), const char* what) {
        const Token& t = peek();
        if (t.kind == TokenKind::Name)
            if (auto v = lookup(t.text)) {
                next();
                return uint32_t(*v);
            }
        fail(t, std::string("expected ") + what + found());
    }

    void field(const FieldSpec& spec, Operand& value) {
        switch (spec.kind) {
            case FieldKind::AccessPattern: value.pattern = intern_pattern(access_pattern()); break;
            case FieldKind::F32: f32_value(value.bits); break;
            case FieldKind::I32:
                value.bits = uint32_t(int32_t(integer("value", std::numeric_limits<int32_t>::min(),
                                                      std::numeric_limits<int32_t>::max())));
                break;
            case FieldKind::U32: value.bits = uint32_t(integer("value", 0, std::numeric_limits<uint32_t>::max())); break;
            case FieldKind::Activation: value.bits = enum_value(activation_from_name, "an activation function"); break;
            case FieldKind::Alu: value.bits = enum_value(alu_op_from_name, "an ALU operator"); break;
            case FieldKind::Reduce: value.bits = enum_value(reduce_op_from_name, "a reduction (none, add, max, min)"); break;
            case FieldKind::Accumulate:
                value.bits = enum_value(accumulate_from_name, "an accumulate mode (overwrite, accumulate)");
                break;
            case FieldKind::Semaphore: value.bits = semaphore_ref(); break;
        }
    }

    void instruction() {
        const Token queue_token = next();
        if (!seen_core_) fail(queue_token, "instruction before any .core directive");
        Engine engine{};
        uint8_t queue = 0;
        if (!parse_queue(queue_token.text, engine, queue))
            fail(queue_token, "unknown engine queue '" + queue_token.text + "' (pe, act, dve, pool, sp, dma0, dma1, ...)");
        const Token mnemonic = peek();
        if (mnemonic.kind != TokenKind::Name) fail(mnemonic, "expected an instruction" + found());
        const OpcodeInfo* op = find_mnemonic(mnemonic.text);
        if (!op) fail(mnemonic, "unknown instruction '" + mnemonic.text + "'");
        next();

        Instruction inst;
        inst.opcode = op->opcode;
        std::vector<bool> given(op->field_count, false);
        bool have_wait = false, have_signal = false;
        while (peek().kind != TokenKind::End) {
            const Token key = peek();
            if (key.kind != TokenKind::Name) fail(key, "expected an operand name" + found());
            next();
            expect("=");
            if (key.text == "wait") {
                if (have_wait) fail(key, "'wait' given twice");
                have_wait = true;
                inst.sync.wait_semaphore = uint16_t(semaphore_ref());
                expect(">=");
                inst.sync.wait_value = uint32_t(integer("wait value", 0, std::numeric_limits<uint32_t>::max()));
            } else if (key.text == "signal") {
                if (have_signal) fail(key, "'signal' given twice");
                have_signal = true;
                inst.sync.signal_semaphore = uint16_t(semaphore_ref());
            } else {
                const size_t f = field_index(*op, key.text);
                if (f == op->field_count)
                    fail(key, "'" + std::string(op->mnemonic) + "' has no operand '" + key.text + "'");
                if (given[f]) fail(key, "operand '" + key.text + "' given twice");
                given[f] = true;
                field(op->fields[f], inst.fields[f]);
            }
            if (peek().kind != TokenKind::End) expect(",");
        }
        for (size_t f = 0; f < op->field_count; ++f) {
            const FieldSpec& spec = op->fields[f];
            if (!given[f] && !(spec.kind == FieldKind::AccessPattern && spec.optional))
                fail(mnemonic, "'" + std::string(op->mnemonic) + "' needs operand '" + std::string(spec.name) + "'");
        }
        auto key = std::make_tuple(graph_, core_, uint8_t(engine), queue);
        auto it = stream_of_.find(key);
        if (it == stream_of_.end()) {
            InstructionStream s;
            s.graph = graph_;
            s.core = core_;
            s.engine = engine;
            s.queue = queue;
            it = stream_of_.emplace(key, result_.container.streams.size()).first;
            result_.container.streams.push_back(std::move(s));
            positions_.emplace_back();
        }
        result_.container.streams[it->second].instructions.push_back(inst);
        positions_[it->second].push_back({line(), queue_token.column});
    }

    static bool parse_queue(const std::string& text, Engine& engine, uint8_t& queue) {
        const std::string dma(name_of(Engine::Dma));
        if (text.size() > dma.size() && text.rfind(dma, 0) == 0) {
            const std::string digits = text.substr(dma.size());
            if (digits.size() > 3 || (digits.size() > 1 && digits[0] == '0')) return false;
            unsigned n = 0;
            for (char c : digits) {
                if (!is_digit(c)) return false;
                n = n * 10 + unsigned(c - '0');
            }
            if (n > 255) return false;
            engine = Engine::Dma;
            queue = uint8_t(n);
            return true;
        }
        auto e = engine_from_name(text);
        if (!e || *e == Engine::Dma) return false;
        engine = *e;
        queue = 0;
        return true;
    }

    void finish() {
        if (!have_target_) throw AssemblyError(result_.file, {1, 1}, "no .target directive (e.g. .target v2)");
        auto& tensors = result_.container.tensors;
        for (size_t t = 0; t < tensors.size(); ++t)
            if (!tensors[t].data.empty() && tensors[t].data.size() != tensors[t].size_bytes())
                throw AssemblyError(result_.file, tensor_positions_[t],
                                    "tensor '" + tensors[t].name + "' has " + std::to_string(tensors[t].data.size()) +
                                        " bytes of .data, its shape needs " + std::to_string(tensors[t].size_bytes()));
        // Sort streams the way the writer numbers sections and carry the source positions along.
        std::vector<size_t> order(result_.container.streams.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        auto& streams = result_.container.streams;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return std::make_tuple(streams[a].graph, streams[a].core, uint8_t(streams[a].engine), streams[a].queue) <
                   std::make_tuple(streams[b].graph, streams[b].core, uint8_t(streams[b].engine), streams[b].queue);
        });
        std::vector<InstructionStream> sorted;
        std::vector<std::vector<SourcePosition>> sorted_positions;
        for (size_t i : order) {
            sorted.push_back(std::move(streams[i]));
            sorted_positions.push_back(std::move(positions_[i]));
        }
        streams = std::move(sorted);
        result_.container.canonicalize();
        for (size_t i = 0; i < streams.size(); ++i)
            result_.instruction_positions[streams[i].section] = std::move(sorted_positions[i]);
    }

    std::string_view source_;
    Assembly result_;
    bool have_target_ = false;
    bool seen_core_ = false;
    uint32_t core_ = 0;
    uint32_t graph_ = 0;
    std::map<std::string, uint32_t> tensors_;
    std::vector<SourcePosition> tensor_positions_;
    std::map<std::string, uint32_t> semaphores_;
    std::map<std::tuple<uint32_t, uint32_t, uint8_t, uint8_t>, size_t> stream_of_;
    std::vector<std::vector<SourcePosition>> positions_;
};

}  // namespace

Assembly assemble(std::string_view source, const std::string& file_name) {
    return Assembler(source, file_name).run();
}

}  // namespace nsim::isa
