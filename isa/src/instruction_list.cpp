#include "isa/instruction_list.h"

#include "isa/encoding.h"

namespace nsim::isa {

InstructionList::InstructionList(std::initializer_list<Instruction> instructions)
    : InstructionList(std::vector<Instruction>(instructions)) {}

InstructionList::InstructionList(std::vector<Instruction> instructions)
    : body_(std::make_shared<Body>(Body{std::move(instructions), nullptr})) {}

InstructionList::InstructionList(std::vector<Instruction> instructions, std::vector<uint8_t> code)
    : body_(std::make_shared<Body>(
          Body{std::move(instructions), std::make_unique<std::vector<uint8_t>>(std::move(code))})) {}

const std::vector<Instruction>& InstructionList::vector() const {
    static const std::vector<Instruction> none;
    return body_ ? body_->instructions : none;
}

std::vector<Instruction>& InstructionList::own() {
    if (!body_) body_ = std::make_shared<Body>();
    else if (body_.use_count() > 1) body_ = std::make_shared<Body>(Body{body_->instructions, nullptr});
    body_->code.reset();
    return body_->instructions;
}

InstructionList::iterator InstructionList::erase(const_iterator first, const_iterator last) {
    const auto from = first - vector().begin(), to = last - vector().begin();
    auto& v = own();
    return v.erase(v.begin() + from, v.begin() + to);
}

InstructionList::iterator InstructionList::insert(const_iterator at, const Instruction& instruction) {
    const auto where = at - vector().begin();
    auto& v = own();
    return v.insert(v.begin() + where, instruction);
}

const std::vector<uint8_t>& InstructionList::code() const {
    static const std::vector<uint8_t> none;
    if (!body_) return none;
    if (!body_->code) {
        auto bytes = std::make_unique<std::vector<uint8_t>>();
        for (const Instruction& instruction : body_->instructions) encode(instruction, *bytes);
        body_->code = std::move(bytes);
    }
    return *body_->code;
}

bool InstructionList::operator==(const InstructionList& o) const {
    return shares_body_with(o) || vector() == o.vector();
}

}  // namespace nsim::isa
