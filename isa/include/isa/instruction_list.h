// The instructions of one stream, shared between every owner that holds the same ones.
// Why: a data-parallel program runs the same compute streams on every core, the tool and the runtime each read
// the same file, and an execution fetches the streams the load wrote into device memory. With a plain
// std::vector<Instruction> each held its own copy (BERT-large on 32 cores: 6.6 GiB). An InstructionList is a
// handle on one immutable body: copying it shares the body, writing through it first makes the body its own (copy
// on write). The body keeps the encoded bytes it was decoded from (or encodes them once), so the runtime's load
// writes those to device memory without encoding again, and an execution that fetches the same bytes back reuses
// the decoded instructions (sim/core/instruction_fetch.h). Reads have std::vector's interface; not thread-safe for
// concurrent writers (the simulator is single-threaded; processes are forked).
// Pitfall: a reference or iterator a writer returns names the body the list held then; do not keep it across a
// copy. After `Instruction& in = program.streams[0].instructions[0]; isa::Container copy = program;` a write through
// `in` changes `copy` too, and the next write through `program` gives `program` a body of its own, so `in` then
// names `copy`'s instruction. Take the reference again after any copy (the validator's tests do).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "isa/instruction.h"

namespace nsim::isa {

class InstructionList {
public:
    using value_type = Instruction;
    using size_type = size_t;
    using const_iterator = std::vector<Instruction>::const_iterator;
    using iterator = std::vector<Instruction>::iterator;
    using const_reference = const Instruction&;
    using reference = Instruction&;

    InstructionList() = default;
    InstructionList(std::initializer_list<Instruction> instructions);
    InstructionList(std::vector<Instruction> instructions);  // NOLINT: a vector is a list
    // Instructions decoded from `code` (their encoding, back to back); the list keeps the bytes.
    InstructionList(std::vector<Instruction> instructions, std::vector<uint8_t> code);

    size_t size() const { return body_ ? body_->instructions.size() : 0; }
    bool empty() const { return size() == 0; }
    const Instruction& operator[](size_t i) const { return body_->instructions[i]; }
    const Instruction& at(size_t i) const { return vector().at(i); }
    const Instruction& front() const { return body_->instructions.front(); }
    const Instruction& back() const { return body_->instructions.back(); }
    const_iterator begin() const { return vector().begin(); }
    const_iterator end() const { return vector().end(); }
    const_iterator cbegin() const { return begin(); }
    const_iterator cend() const { return end(); }
    const std::vector<Instruction>& vector() const;

    // Writers: the body becomes this list's own first, and forgets its encoded bytes (see the pitfall above).
    Instruction& operator[](size_t i) { return own()[i]; }
    Instruction& at(size_t i) { return own().at(i); }
    Instruction& front() { return own().front(); }
    Instruction& back() { return own().back(); }
    iterator begin() { return own().begin(); }
    iterator end() { return own().end(); }
    void push_back(const Instruction& instruction) { own().push_back(instruction); }
    template <class... Args>
    Instruction& emplace_back(Args&&... args) { return own().emplace_back(std::forward<Args>(args)...); }
    void reserve(size_t n) { own().reserve(n); }
    void resize(size_t n) { own().resize(n); }
    void clear() { body_.reset(); }
    iterator erase(const_iterator first, const_iterator last);
    iterator insert(const_iterator at, const Instruction& instruction);

    // The instructions encoded back to back (isa/FORMAT.md §5): the bytes they were decoded from, or
    // encoded on the first call and kept.
    const std::vector<uint8_t>& code() const;
    // The bytes when the list knows them already (decoded from them, or code() was called), else
    // null: what the container writer uses instead of encoding, without keeping an encoding it makes.
    const std::vector<uint8_t>* known_code() const { return body_ ? body_->code.get() : nullptr; }
    // True when both lists hold the same body (then they are equal without comparing).
    bool shares_body_with(const InstructionList& o) const { return body_ && body_ == o.body_; }
    // How many lists hold this list's body (0 for an empty list that never had one).
    long holders() const { return body_.use_count(); }

    bool operator==(const InstructionList& o) const;
    bool operator!=(const InstructionList& o) const { return !(*this == o); }
    bool operator==(const std::vector<Instruction>& o) const { return vector() == o; }

private:
    struct Body {
        std::vector<Instruction> instructions;
        std::unique_ptr<std::vector<uint8_t>> code;  // null: not known yet
    };
    std::vector<Instruction>& own();

    std::shared_ptr<Body> body_;
};

inline bool operator==(const std::vector<Instruction>& a, const InstructionList& b) { return b == a; }
inline bool operator!=(const std::vector<Instruction>& a, const InstructionList& b) { return !(b == a); }

}  // namespace nsim::isa
