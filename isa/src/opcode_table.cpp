#include "isa/opcode_table.h"

namespace nsim::isa {
namespace {
using namespace table_names;

// One array of FieldSpec per opcode. The trailing sentinel keeps opcodes without fields legal C++.
namespace field_lists {
#include "isa/field_macros.h"
#define NSIM_FIELD(kind, name, spaces, access, optional) \
    FieldSpec{FieldKind::kind, #name, spaces, FieldAccess::access, optional},
#define NSIM_OPCODE(id, mnemonic, engines, cost, fields) \
    constexpr FieldSpec id[] = {fields FieldSpec{FieldKind::U32, "", 0, FieldAccess::None, false}};
#include "isa/opcodes.def"
#undef NSIM_OPCODE
#undef NSIM_FIELD
#include "isa/field_macros_end.h"
}  // namespace field_lists

constexpr OpcodeInfo opcode_infos[] = {
#define NSIM_OPCODE(id, mnemonic, engines, cost, fields)                                     \
    OpcodeInfo{Opcode::id, mnemonic, engines, CostClass::cost, field_lists::id,              \
               sizeof(field_lists::id) / sizeof(FieldSpec) - 1},
#include "isa/opcodes.def"
#undef NSIM_OPCODE
};

constexpr size_t opcode_info_count = sizeof(opcode_infos) / sizeof(OpcodeInfo);
static_assert(opcode_info_count == opcode_count());

}  // namespace

const OpcodeInfo* find_opcode(uint16_t raw) {
    if (raw == 0 || raw > opcode_info_count) return nullptr;
    return &opcode_infos[raw - 1];
}

const OpcodeInfo* find_mnemonic(std::string_view mnemonic) {
    for (const auto& info : opcode_infos)
        if (info.mnemonic == mnemonic) return &info;
    return nullptr;
}

const OpcodeInfo& info(Opcode opcode) { return opcode_infos[size_t(opcode) - 1]; }

size_t field_index(const OpcodeInfo& info, std::string_view name) {
    for (size_t i = 0; i < info.field_count; ++i)
        if (info.fields[i].name == name) return i;
    return info.field_count;
}

}  // namespace nsim::isa
