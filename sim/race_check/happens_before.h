// Which instruction of one core is known to have completed before another issues, from the program
// alone: the engines are in-order queues that order each other only through semaphores.
//
// Model (isa/FORMAT.md, the sync fields): an instruction waits until its semaphore >= a value before issuing
// and increments its signal semaphore when it completes. A queue completes its instructions in order
// (an engine's pipeline latency is one per engine, a DMA queue moves its transfers one after another),
// so "instruction j of queue q has completed" implies that 0..j have. Semaphores start at 0 each
// execution and only grow, so a wait for s >= v is satisfied only after, from each queue q that
// signals s, at least v - (signals of s from every other queue) of q's signals have completed (the
// waiting queue's own signals count only from the instructions before the waiter): that
// many of q's instructions, their completion and everything known complete when they issued. This
// holds whatever the timing, which is what a race checker needs; a program that depends on timing
// for its ordering (two queues signal one semaphore, the wait relies on which one is first) gets no
// ordering from that wait. A semaphore that sem_set writes gives no ordering at all.
//
// Signals that cannot be among the first v are left out: the waiting queue's own from the waiter on,
// those of a queue that itself waited for >= v on the same semaphore before signalling, those issued
// after any instruction of any queue that waited for >= v completed, and those a previous pass proved
// to issue only after the waiter completed (the last two from the previous pass's clocks; passes
// repeat until nothing changes).
//
// Clocks: for each instruction I, clock[q] = the highest index of queue q known completed before I
// issues (-1: none). Computed in a pass that advances each queue while the instructions its next
// wait depends on have been visited: that order is also an order the hardware could run them in.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "isa/container.h"

namespace nsim::sim::race_check {

using Clock = std::vector<int32_t>;

// One core's queues, visited in an order consistent with what the semaphores guarantee.
class HappensBefore {
public:
    // `queues`: the core's instruction streams (pointers into the program).
    explicit HappensBefore(std::vector<const isa::InstructionStream*> queues);

    // Calls visit(queue, index, clock) for every instruction, each after every instruction known to
    // complete before it. Returns the queues left unvisited because a wait can never be satisfied
    // (fewer signals than the value waited for, or a cycle): a deadlock, described in `stuck`.
    using Visitor = std::function<void(size_t queue, uint32_t index, const Clock& clock)>;
    void visit(const Visitor& visitor, std::vector<std::string>* stuck);

    // Whether instruction (queue, index) has completed before an instruction whose clock is `clock` issues.
    static bool before(size_t queue, uint32_t index, const Clock& clock) { return int64_t(index) <= clock[queue]; }

private:
    struct Dependency {
        size_t queue;
        uint32_t index;
    };
    // The instructions whose completion a wait guarantees (one per signalling queue at most); false
    // when the wait can never be satisfied.
    bool wait_dependencies(size_t waiter_queue, uint32_t waiter_index, const isa::Instruction& inst,
                           std::vector<Dependency>* dependencies) const;

    // One pass in a semaphore-consistent order; returns each signalling instruction's clock at completion.
    std::vector<std::vector<Clock>> order(const Visitor* visitor, std::vector<std::string>* stuck) const;

    static constexpr int kMaxPasses = 4;
    struct Signaller {
        uint32_t index;   // in its queue
        uint32_t floor;   // the largest value of this semaphore its queue waited for up to it
    };
    std::vector<const isa::InstructionStream*> queues_;
    // Per semaphore: per queue, its instructions that signal it, in order.
    std::vector<std::vector<std::vector<Signaller>>> signallers_;
    struct Wait {
        uint32_t index;   // in its queue
        uint32_t floor;   // the largest value of the semaphore its queue waited for up to and with it
    };
    // The largest value of `sem` some instruction known complete at `clock` waited for: the semaphore had
    // reached it before, so a signal issued at `clock` is not among the first that many.
    uint32_t reached_before(uint16_t sem, const Clock& clock) const;
    // Per semaphore: per queue, its instructions that wait on it, in order.
    std::vector<std::vector<std::vector<Wait>>> waits_;
    // Per semaphore: the queues that signal it, and those that wait on it.
    std::vector<std::vector<size_t>> signalling_queues_, waiting_queues_;
    std::vector<std::vector<Clock>> known_;   // the previous pass's completion clocks (empty: none yet)
    std::vector<bool> set_by_instruction_;   // sem_set writes it: waits on it order nothing
};

}  // namespace nsim::sim::race_check
