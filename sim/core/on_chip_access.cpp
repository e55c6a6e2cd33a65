#include "core/on_chip_access.h"

namespace nsim::sim::core {
namespace {

struct Box {
    uint64_t first_partition, end_partition;
    int64_t first_byte, end_byte;  // within a partition, [first, end)
};

Box box_of(const isa::AccessPattern& ap) {
    const int64_t size = int64_t(isa::size_in_bytes(ap.dtype));
    return {ap.partition_start, uint64_t(ap.partition_start) + ap.partition_count,
            int64_t(ap.offset) + ap.min_free_index() * size, int64_t(ap.offset) + (ap.max_free_index() + 1) * size};
}

bool on_chip(const isa::AccessPattern& ap) { return ap.present() && isa::is_partitioned(ap.space); }

bool overlap(const isa::AccessPattern& a, const isa::AccessPattern& b) {
    if (!on_chip(a) || !on_chip(b) || a.space != b.space) return false;
    const Box x = box_of(a), y = box_of(b);
    return x.first_partition < y.end_partition && y.first_partition < x.end_partition && x.first_byte < y.end_byte &&
           y.first_byte < x.end_byte;
}

bool reads(isa::FieldAccess access) { return access == isa::FieldAccess::Read; }
bool writes(isa::FieldAccess access) { return access == isa::FieldAccess::Write; }

}  // namespace

bool touches(const isa::Instruction& inst, isa::MemorySpace space) {
    const isa::OpcodeInfo& op = isa::info(inst.opcode);
    for (size_t f = 0; f < op.field_count; ++f)
        if (op.fields[f].kind == isa::FieldKind::AccessPattern && inst.ap(f).present() && inst.ap(f).space == space)
            return true;
    return false;
}

bool reads_what_was_written(const isa::Instruction& reader, const isa::Instruction& writer) {
    const isa::OpcodeInfo& r = isa::info(reader.opcode);
    const isa::OpcodeInfo& w = isa::info(writer.opcode);
    for (size_t i = 0; i < r.field_count; ++i) {
        if (r.fields[i].kind != isa::FieldKind::AccessPattern || !reads(r.fields[i].access)) continue;
        for (size_t j = 0; j < w.field_count; ++j)
            if (w.fields[j].kind == isa::FieldKind::AccessPattern && writes(w.fields[j].access) &&
                overlap(reader.ap(i), writer.ap(j)))
                return true;
    }
    return false;
}

}  // namespace nsim::sim::core
