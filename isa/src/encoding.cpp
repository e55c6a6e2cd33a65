#include "isa/encoding.h"

#include <cstdio>
#include <string>

#include "byte_io.h"

namespace nsim::isa {
namespace {

std::string field_label(const FieldSpec& field) { return "operand '" + std::string(field.name) + "'"; }

void encode_access_pattern(const AccessPattern& ap, bytes::Writer& out) {
    if (!ap.present()) {
        out.zeros(kAccessPatternBytes);
        return;
    }
    out.u8(uint8_t(ap.space));
    out.u8(uint8_t(ap.dtype));
    out.u8(ap.dim_count);
    out.u8(0);
    out.u32(ap.tensor);
    out.u32(ap.partition_start);
    out.u32(ap.partition_count);
    out.i32(ap.partition_stride);
    out.u32(0);
    out.u64(ap.offset);
    for (size_t d = 0; d < kMaxFreeDims; ++d) {
        bool used = d < ap.dim_count;
        out.i32(used ? ap.dims[d].stride : 0);
        out.u32(used ? ap.dims[d].count : 0);
    }
}

AccessPattern decode_access_pattern(bytes::Reader& in, const FieldSpec& field) {
    AccessPattern ap;
    const uint8_t space = in.u8();
    const uint8_t dtype = in.u8();
    const uint8_t dim_count = in.u8();
    const uint8_t reserved0 = in.u8();
    ap.tensor = in.u32();
    ap.partition_start = in.u32();
    ap.partition_count = in.u32();
    ap.partition_stride = in.i32();
    const uint32_t reserved1 = in.u32();
    ap.offset = in.u64();
    bool unused_dims_zero = true;
    for (size_t d = 0; d < kMaxFreeDims; ++d) {
        Dim dim{in.i32(), in.u32()};
        if (d < dim_count) ap.dims[d] = dim;
        else if (dim.stride != 0 || dim.count != 0) unused_dims_zero = false;
    }

    if (space == 0) {
        if (dtype || dim_count || reserved0 || ap.tensor || ap.partition_start || ap.partition_count ||
            ap.partition_stride || reserved1 || ap.offset || !unused_dims_zero)
            throw DecodeError(field_label(field) + " is absent (memory space 0) but its other bytes are not zero");
        return AccessPattern{};
    }
    if (!is_valid_space(space))
        throw DecodeError(field_label(field) + ": unknown memory space " + std::to_string(space));
    if (!is_valid_dtype(dtype))
        throw DecodeError(field_label(field) + ": unknown data type " + std::to_string(dtype));
    if (dim_count < 1 || dim_count > kMaxFreeDims)
        throw DecodeError(field_label(field) + ": " + std::to_string(dim_count) +
                          " free dimensions (must be 1 to " + std::to_string(kMaxFreeDims) + ")");
    if (reserved0 || reserved1)
        throw DecodeError(field_label(field) + ": reserved bytes are not zero");
    if (!unused_dims_zero)
        throw DecodeError(field_label(field) + ": unused free dimensions are not zero");
    ap.space = MemorySpace(space);
    ap.dtype = DType(dtype);
    ap.dim_count = dim_count;
    return ap;
}

bool enum_value_valid(FieldKind kind, uint32_t raw) {
    switch (kind) {
        case FieldKind::Activation: return is_valid_activation(raw);
        case FieldKind::Alu: return is_valid_alu_op(raw);
        case FieldKind::Reduce: return is_valid_reduce_op(raw);
        case FieldKind::Accumulate: return is_valid_accumulate(raw);
        default: return true;
    }
}

const char* enum_kind_name(FieldKind kind) {
    switch (kind) {
        case FieldKind::Activation: return "activation function";
        case FieldKind::Alu: return "ALU operator";
        case FieldKind::Reduce: return "reduction";
        case FieldKind::Accumulate: return "accumulate mode";
        default: return "value";
    }
}

}  // namespace

size_t encoded_size(const OpcodeInfo& info) {
    size_t size = kInstructionHeaderBytes;
    for (size_t i = 0; i < info.field_count; ++i)
        size += info.fields[i].kind == FieldKind::AccessPattern ? kAccessPatternBytes : kScalarFieldBytes;
    return size;
}

void encode(const Instruction& inst, std::vector<uint8_t>& out) {
    const OpcodeInfo& op = info(inst.opcode);
    bytes::Writer w(out);
    w.u16(uint16_t(inst.opcode));
    w.u16(uint16_t(encoded_size(op)));
    w.u16(inst.sync.wait_semaphore);
    w.u16(inst.sync.signal_semaphore);
    w.u32(inst.sync.wait_value);
    w.u32(0);
    for (size_t i = 0; i < op.field_count; ++i) {
        if (op.fields[i].kind == FieldKind::AccessPattern) encode_access_pattern(inst.ap(i), w);
        else w.u32(inst.fields[i].bits);
    }
}

size_t decode(const uint8_t* data, size_t available, Instruction& out) {
    if (available < kInstructionHeaderBytes)
        throw DecodeError("truncated: an instruction header needs " + std::to_string(kInstructionHeaderBytes) +
                          " bytes, " + std::to_string(available) + " left");
    bytes::Reader in(data, available);
    const uint16_t raw_opcode = in.u16();
    const OpcodeInfo* op = find_opcode(raw_opcode);
    if (!op) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "%04x", raw_opcode);
        throw DecodeError(std::string("unknown opcode 0x") + hex);
    }
    const uint16_t length = in.u16();
    const size_t expected = encoded_size(*op);
    if (length != expected)
        throw DecodeError("length field says " + std::to_string(length) + " bytes, '" + std::string(op->mnemonic) +
                          "' is " + std::to_string(expected));
    if (available < expected)
        throw DecodeError("truncated: '" + std::string(op->mnemonic) + "' needs " + std::to_string(expected) +
                          " bytes, " + std::to_string(available) + " left");
    Instruction inst;
    inst.opcode = op->opcode;
    inst.sync.wait_semaphore = in.u16();
    inst.sync.signal_semaphore = in.u16();
    inst.sync.wait_value = in.u32();
    if (in.u32() != 0) throw DecodeError("reserved header bytes are not zero");
    for (size_t i = 0; i < op->field_count; ++i) {
        const FieldSpec& field = op->fields[i];
        if (field.kind == FieldKind::AccessPattern) {
            inst.fields[i].pattern = intern_pattern(decode_access_pattern(in, field));
        } else {
            const uint32_t raw = in.u32();
            if (!enum_value_valid(field.kind, raw))
                throw DecodeError(field_label(field) + ": unknown " + enum_kind_name(field.kind) + " " +
                                  std::to_string(raw));
            inst.fields[i].bits = raw;
        }
    }
    out = inst;
    return expected;
}

}  // namespace nsim::isa
