#include "race_check/race_checker.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "race_check/happens_before.h"
#include "race_check/memory_footprint.h"
#include "race_check/shadow_memory.h"

namespace nsim::sim::race_check {
namespace {

const char* space_name(AddressSpace space) {
    switch (space) {
        case AddressSpace::Sbuf: return "SBUF";
        case AddressSpace::Psum: return "PSUM";
        case AddressSpace::Device: return "device memory";
        default: return "host memory";
    }
}

std::string byte_text(AddressSpace space, uint64_t address) {
    if (space == AddressSpace::Sbuf || space == AddressSpace::Psum)
        return fmt::format("partition {} byte {}", address >> 32, address & 0xffffffffu);
    return fmt::format("byte 0x{:x}", address);
}

std::vector<Finding> overlapping_tensors(const isa::Container& program) {
    std::vector<Finding> findings;
    // Declared views over other tensors' bytes (isa::kAliasMetadataPrefix) cover those on purpose; two
    // views over each other, or a tensor reaching out of a view, are still reported.
    std::set<std::string> aliases;
    const std::string prefix = isa::kAliasMetadataPrefix;
    for (const auto& [key, value] : program.metadata)
        if (key.rfind(prefix, 0) == 0) aliases.insert(key.substr(prefix.size()));
    auto within = [](const isa::TensorInfo& inner, const isa::TensorInfo& outer) {
        return inner.offset >= outer.offset && inner.offset + inner.size_bytes() <= outer.offset + outer.size_bytes();
    };
    auto viewed = [&](const isa::TensorInfo& x, const isa::TensorInfo& y) {
        const bool x_alias = aliases.count(x.name) > 0, y_alias = aliases.count(y.name) > 0;
        return (x_alias && !y_alias && within(y, x)) || (y_alias && !x_alias && within(x, y));
    };
    for (size_t a = 0; a < program.tensors.size(); ++a)
        for (size_t b = a + 1; b < program.tensors.size(); ++b) {
            const isa::TensorInfo& x = program.tensors[a];
            const isa::TensorInfo& y = program.tensors[b];
            if (x.location != y.location || x.size_bytes() == 0 || y.size_bytes() == 0) continue;
            if (viewed(x, y)) continue;
            if (x.offset < y.offset + y.size_bytes() && y.offset < x.offset + x.size_bytes())
                findings.push_back({FindingKind::OverlappingTensors,
                                    fmt::format("tensors '{}' [0x{:x}, 0x{:x}) and '{}' [0x{:x}, 0x{:x}) are placed over each other",
                                                x.name, x.offset, x.offset + x.size_bytes(), y.name, y.offset,
                                                y.offset + y.size_bytes()),
                                    {},
                                    {}});
        }
    return findings;
}

// One core of one graph: its queues visited in a semaphore-consistent order, each access checked
// against the shadow. `written_before`: by tensor, whether an earlier graph wrote it.
class CoreChecker {
public:
    CoreChecker(const isa::Container& program, uint32_t graph, uint32_t core, const std::vector<bool>& written_before)
        : program_(program), core_(core) {
        for (const isa::InstructionStream& s : program.streams)
            if (s.core == core && s.graph == graph) queues_.push_back(&s);
        // What the host put in device and host memory before the execution: inputs, weights, state (a
        // timing-only program leaves its contents out, but the host's are there), and initialised scratch.
        for (size_t i = 0; i < program.tensors.size(); ++i) {
            const isa::TensorInfo& t = program.tensors[i];
            const bool from_host = t.role == isa::TensorRole::Input || t.role == isa::TensorRole::Weight ||
                                   t.role == isa::TensorRole::State || !t.data.empty() || written_before[i];
            if (!from_host) continue;
            auto& shadow = shadows_[size_t(t.location == isa::TensorLocation::Host ? AddressSpace::Host : AddressSpace::Device)];
            shadow.update(Region{0, 1, {t.offset, t.offset + t.size_bytes()}}, [](ByteState& b, uint64_t) { b.written = true; });
        }
    }

    void run(std::vector<Finding>* findings) {
        findings_ = findings;
        HappensBefore order(queues_);
        std::vector<std::string> stuck;
        order.visit([&](size_t q, uint32_t i, const Clock& clock) { visit(q, i, clock); }, &stuck);
        for (const std::string& s : stuck) findings->push_back({FindingKind::Deadlock, s, {}, {}});
        // The host reads the outputs after the execution: what races or garbage they hold is observed.
        for (const isa::TensorInfo& t : program_.tensors) {
            if (t.role != isa::TensorRole::Output) continue;
            const AddressSpace space = t.location == isa::TensorLocation::Host ? AddressSpace::Host : AddressSpace::Device;
            shadows_[size_t(space)].update(Region{0, 1, {t.offset, t.offset + t.size_bytes()}}, [&](ByteState& b, uint64_t at) {
                observe(b, {}, t.name, space, at);
            });
        }
    }

private:
    InstructionRef ref(size_t q, uint32_t i) const {
        const isa::InstructionStream& s = *queues_[q];
        return {core_, s.engine, s.queue, i, s.instructions[i].opcode};
    }

    void report(FindingKind kind, const std::string& what, Access earlier, Access now, AddressSpace space, uint64_t at) {
        const auto key = std::make_tuple(int(kind), earlier.queue, earlier.index, now.queue, now.index);
        if (!reported_.insert(key).second) return;
        const InstructionRef later = ref(size_t(now.queue), now.index);
        if (kind == FindingKind::UnwrittenRead) {
            findings_->push_back({kind, fmt::format("{} reads {} {} that nothing wrote before it", later.text(), space_name(space), byte_text(space, at)),
                                  later, {}});
            return;
        }
        const InstructionRef first = ref(size_t(earlier.queue), earlier.index);
        findings_->push_back({kind,
                              fmt::format("race on {} {}: {} and {} {}, and no semaphore orders them", space_name(space),
                                          byte_text(space, at), first.text(), later.text(), what),
                              first, later});
    }

    // Bytes being read (by an instruction, or by the host as an output): a deferred finding about them is due.
    // `reader`: the instruction reading (queue -1: the host reading output `output`).
    void observe(const ByteState& b, Access reader, const std::string& output, AddressSpace space, uint64_t at) {
        if (b.racing_write.queue >= 0) {
            const std::string who = reader.queue < 0 ? "the host reads output '" + output + "'"
                                                     : ref(size_t(reader.queue), reader.index).text() + " reads the result";
            report(FindingKind::Race, "both write (and " + who + ")", b.racing_write, b.last_write, space, at);
        }
        if (b.unwritten_source >= 0) {
            const UnwrittenRead& u = unwritten_[size_t(b.unwritten_source)];
            report(FindingKind::UnwrittenRead, "", {}, u.reader, u.space, u.at);
        }
    }

    void visit(size_t q, uint32_t i, const Clock& clock) {
        const isa::Instruction& inst = queues_[q]->instructions[i];
        const isa::OpcodeInfo& info = isa::info(inst.opcode);
        const int32_t me = int32_t(q);
        const Access self{me, i};
        int32_t unwritten = -1;   // this instruction read bytes nothing wrote (index into unwritten_)
        bool wrote = false;
        auto ordered = [&](int32_t queue, uint32_t index) { return queue < 0 || queue == me || HappensBefore::before(size_t(queue), index, clock); };
        // Reads first: an instruction that reads and writes the same bytes (accumulation) races with neither.
        for (isa::FieldAccess pass : {isa::FieldAccess::Read, isa::FieldAccess::Write})
            for (size_t f = 0; f < info.field_count; ++f) {
                if (info.fields[f].kind != isa::FieldKind::AccessPattern || info.fields[f].access != pass) continue;
                const isa::AccessPattern& ap = inst.ap(f);
                AddressSpace space;
                if (!address_space(ap, program_, &space)) continue;
                for (const Region& region : footprint(ap, program_))
                    shadows_[size_t(space)].update(region, [&](ByteState& b, uint64_t at) {
                        if (pass == isa::FieldAccess::Read) {
                            if (!b.written && unwritten < 0) {
                                unwritten = int32_t(unwritten_.size());
                                unwritten_.push_back({self, space, at});
                            } else if (b.written && !ordered(b.last_write.queue, b.last_write.index)) {
                                report(FindingKind::Race, "reads what the first writes", b.last_write, self, space, at);
                            }
                            observe(b, self, "", space, at);
                            b.record_read(self);
                            return;
                        }
                        const bool racing = b.written && !ordered(b.last_write.queue, b.last_write.index);
                        b.racing_write = racing ? b.last_write : Access{};
                        for (const Access& read : b.last_reads)
                            if (!ordered(read.queue, read.index))
                                report(FindingKind::Race, "writes what the first reads", read, self, space, at);
                        wrote = true;
                        b.written = true;
                        b.last_write = self;
                        b.unwritten_source = unwritten;
                        b.last_reads.clear();
                    });
            }
        // What it read leaves the core (a send) or goes nowhere the checker follows: nothing defers it.
        if (unwritten >= 0 && !wrote) {
            const UnwrittenRead& u = unwritten_[size_t(unwritten)];
            report(FindingKind::UnwrittenRead, "", {}, u.reader, u.space, u.at);
        }
    }

    const isa::Container& program_;
    uint32_t core_;
    std::vector<const isa::InstructionStream*> queues_;
    ShadowMemory shadows_[4];   // by AddressSpace
    std::vector<Finding>* findings_ = nullptr;
    struct UnwrittenRead {
        Access reader;
        AddressSpace space;
        uint64_t at;
    };
    std::vector<UnwrittenRead> unwritten_;
    std::set<std::tuple<int, int32_t, uint32_t, size_t, uint32_t>> reported_;
};

}  // namespace

std::string InstructionRef::text() const {
    return fmt::format("core {} {} #{} ({})", core, isa::queue_name(engine, queue), index, isa::info(opcode).mnemonic);
}

std::vector<Finding> check(const isa::Container& program, CheckCoverage* coverage) {
    std::vector<Finding> findings = overlapping_tensors(program);
    // A program of several graphs: each checked alone, in index order (the order a training step runs
    // them), from the device and host memory the graphs before it wrote (a whole tensor at a time).
    std::vector<bool> written(program.tensors.size(), false);
    for (uint32_t graph = 0; graph < program.graph_count(); ++graph) {
        std::set<uint32_t> cores;
        for (const isa::InstructionStream& s : program.streams)
            if (s.graph == graph) cores.insert(s.core);
        const size_t before = findings.size();
        // A core's check depends on its streams and on the program's tensors alone (the core's number
        // only appears in messages, and a clean verdict does not depend on the order its queues are
        // listed in): one that repeats a clean core's streams is clean too. (A core with findings is
        // not a model: its copies are checked, so that every core's findings are listed.)
        std::vector<std::vector<const isa::InstructionStream*>> clean;
        for (uint32_t core : cores) {
            std::vector<const isa::InstructionStream*> streams = isa::core_streams(program, graph, core);
            if (coverage) ++coverage->core_graphs;
            if (std::any_of(clean.begin(), clean.end(), [&](const auto& c) { return isa::same_streams(c, streams); })) {
                if (coverage) ++coverage->repeated;
                continue;
            }
            const size_t found = findings.size();
            CoreChecker(program, graph, core, written).run(&findings);
            if (findings.size() == found) clean.push_back(std::move(streams));
        }
        // Several graphs: which one a finding is in (their instructions are numbered per graph).
        if (!program.graphs.empty())
            for (size_t f = before; f < findings.size(); ++f)
                findings[f].message = "graph '" + program.graphs[graph] + "': " + findings[f].message;
        for (const isa::InstructionStream& s : program.streams) {
            if (s.graph != graph) continue;
            for (const isa::Instruction& inst : s.instructions) {
                const isa::OpcodeInfo& op = isa::info(inst.opcode);
                for (size_t f = 0; f < op.field_count; ++f) {
                    if (op.fields[f].kind != isa::FieldKind::AccessPattern || op.fields[f].access != isa::FieldAccess::Write) continue;
                    const isa::AccessPattern& ap = inst.ap(f);
                    if ((ap.space == isa::MemorySpace::Dram || ap.space == isa::MemorySpace::Host) && ap.tensor < written.size())
                        written[ap.tensor] = true;
                }
            }
        }
    }
    return findings;
}

}  // namespace nsim::sim::race_check
