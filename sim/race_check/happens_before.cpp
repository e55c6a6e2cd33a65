#include "race_check/happens_before.h"

#include <algorithm>

namespace nsim::sim::race_check {

HappensBefore::HappensBefore(std::vector<const isa::InstructionStream*> queues) : queues_(std::move(queues)) {
    auto grow = [&](size_t sem) {
        if (sem >= signallers_.size()) {
            signallers_.resize(sem + 1, std::vector<std::vector<Signaller>>(queues_.size()));
            waits_.resize(sem + 1, std::vector<std::vector<Wait>>(queues_.size()));
            set_by_instruction_.resize(sem + 1, false);
        }
    };
    for (size_t q = 0; q < queues_.size(); ++q) {
        for (uint32_t i = 0; i < queues_[q]->instructions.size(); ++i) {
            const isa::Instruction& inst = queues_[q]->instructions[i];
            if (inst.sync.wait_semaphore != isa::kNoSemaphore) {
                const uint16_t sem = inst.sync.wait_semaphore;
                grow(sem);
                std::vector<Wait>& mine = waits_[sem][q];
                mine.push_back({i, std::max(mine.empty() ? 0u : mine.back().floor, inst.sync.wait_value)});
            }
            if (inst.sync.signal_semaphore != isa::kNoSemaphore) {
                const uint16_t sem = inst.sync.signal_semaphore;
                grow(sem);
                const std::vector<Wait>& waited = waits_[sem][q];
                signallers_[sem][q].push_back({i, waited.empty() ? 0u : waited.back().floor});
            }
            if (inst.opcode == isa::Opcode::SemSet) {
                const size_t sem = inst.u32(isa::field_index(isa::info(inst.opcode), "sem"));
                grow(sem);
                set_by_instruction_[sem] = true;
            }
        }
    }
    // Most of a core's queues never touch a given semaphore: list the ones that do.
    signalling_queues_.resize(signallers_.size());
    waiting_queues_.resize(waits_.size());
    for (size_t sem = 0; sem < signallers_.size(); ++sem)
        for (size_t q = 0; q < queues_.size(); ++q) {
            if (!signallers_[sem][q].empty()) signalling_queues_[sem].push_back(q);
            if (!waits_[sem][q].empty()) waiting_queues_[sem].push_back(q);
        }
}

bool HappensBefore::wait_dependencies(size_t waiter_queue, uint32_t waiter_index, const isa::Instruction& inst,
                                      std::vector<Dependency>* dependencies) const {
    dependencies->clear();
    const uint16_t sem = inst.sync.wait_semaphore;
    const uint32_t value = inst.sync.wait_value;
    if (sem == isa::kNoSemaphore || value == 0) return true;
    if (sem < set_by_instruction_.size() && set_by_instruction_[sem]) return true;
    if (sem >= signallers_.size()) return false;
    // The signals that can be among the first `value`: not the waiting queue's own from the waiter on
    // (they cannot complete before it issues), not one whose queue already waited for >= value (it
    // comes after `value` others), not one known to issue after the waiter completed (previous pass).
    // Each rule holds for a prefix of a queue's signals, so what remains is a prefix too.
    std::vector<size_t> available(queues_.size());
    size_t total = 0;
    for (size_t q : signalling_queues_[sem]) {
        const std::vector<Signaller>& mine = signallers_[sem][q];
        // Every rule fails from some signal on (floors grow, indices grow, clocks grow along a queue).
        auto can_be_early = [&](const Signaller& s) {
            if (s.floor >= value || (q == waiter_queue && s.index >= waiter_index)) return false;
            if (known_.empty() || known_[q][s.index].empty()) return true;
            const Clock& issued = known_[q][s.index];
            if (q != waiter_queue && issued[waiter_queue] >= int32_t(waiter_index)) return false;
            return reached_before(sem, issued) < value;
        };
        const size_t n = size_t(std::partition_point(mine.begin(), mine.end(), can_be_early) - mine.begin());
        available[q] = n;
        total += n;
    }
    if (value > total) return false;
    for (size_t q : signalling_queues_[sem]) {
        const int64_t guaranteed = int64_t(value) - int64_t(total - available[q]);
        if (guaranteed > 0) dependencies->push_back({q, signallers_[sem][q][size_t(guaranteed) - 1].index});
    }
    return true;
}

uint32_t HappensBefore::reached_before(uint16_t sem, const Clock& clock) const {
    uint32_t reached = 0;
    for (size_t r : waiting_queues_[sem]) {
        const std::vector<Wait>& waits = waits_[sem][r];
        // The last of queue r's waits on `sem` at or before the last instruction the clock knows complete.
        auto after = std::partition_point(waits.begin(), waits.end(),
                                          [&](const Wait& w) { return int64_t(w.index) <= clock[r]; });
        if (after != waits.begin()) reached = std::max(reached, std::prev(after)->floor);
    }
    return reached;
}

std::vector<std::vector<Clock>> HappensBefore::order(const Visitor* visitor, std::vector<std::string>* stuck) const {
    const size_t n = queues_.size();
    std::vector<uint32_t> next(n, 0);
    std::vector<Clock> queue_clock(n, Clock(n, -1));   // what the queue's next instruction knows so far
    // Clocks of signalling instructions, kept for the waits that refer to them: clock at issue plus itself.
    std::vector<std::vector<Clock>> completion_clock(n);
    for (size_t q = 0; q < n; ++q) completion_clock[q].resize(queues_[q]->instructions.size());
    // Each queue's next instruction's dependencies, worked out once: a blocked queue is looked at
    // again on every sweep, and what its wait guarantees does not change within a pass.
    std::vector<std::vector<Dependency>> head_dependencies(n);
    std::vector<uint32_t> head(n, UINT32_MAX);   // the instruction head_dependencies[q] is for
    std::vector<bool> satisfiable(n, false);
    bool progress = true;
    while (progress) {
        progress = false;
        for (size_t q = 0; q < n; ++q) {
            const auto& instructions = queues_[q]->instructions;
            std::vector<Dependency>& dependencies = head_dependencies[q];
            while (next[q] < instructions.size()) {
                const isa::Instruction& inst = instructions[next[q]];
                if (head[q] != next[q]) {
                    head[q] = next[q];
                    satisfiable[q] = wait_dependencies(q, next[q], inst, &dependencies);
                }
                if (!satisfiable[q]) break;
                bool ready = true;
                for (const Dependency& d : dependencies) ready = ready && next[d.queue] > d.index;
                if (!ready) break;
                Clock& clock = queue_clock[q];
                for (const Dependency& d : dependencies) {
                    const Clock& theirs = completion_clock[d.queue][d.index];
                    for (size_t k = 0; k < n; ++k) clock[k] = std::max(clock[k], theirs[k]);
                }
                if (visitor) (*visitor)(q, next[q], clock);
                if (inst.sync.signal_semaphore != isa::kNoSemaphore) {
                    Clock done = clock;
                    done[q] = std::max<int32_t>(done[q], int32_t(next[q]));
                    completion_clock[q][next[q]] = std::move(done);
                }
                ++next[q];
                progress = true;
            }
        }
    }
    if (stuck)
        for (size_t q = 0; q < n; ++q)
            if (next[q] < queues_[q]->instructions.size()) {
                const isa::Instruction& inst = queues_[q]->instructions[next[q]];
                stuck->push_back(isa::describe(*queues_[q]) + " instruction " + std::to_string(next[q]) + " waits for semaphore " +
                                 std::to_string(inst.sync.wait_semaphore) + " >= " + std::to_string(inst.sync.wait_value) +
                                 ", which no order of the other queues reaches");
            }
    return completion_clock;
}

void HappensBefore::visit(const Visitor& visitor, std::vector<std::string>* stuck) {
    // Each pass can only add order (it excludes signals the previous one proved late); a few settle it.
    known_.clear();
    for (int pass = 0; pass < kMaxPasses; ++pass) {
        std::vector<std::vector<Clock>> clocks = order(nullptr, nullptr);
        if (clocks == known_) break;
        known_ = std::move(clocks);
    }
    order(&visitor, stuck);
}

}  // namespace nsim::sim::race_check
