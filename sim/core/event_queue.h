// The order of one run's happenings: which engine-queue process resumes next and when, and when
// semaphore changes become visible, in simulated picoseconds (= SystemC time). Entries at the same
// time come out in the order they were scheduled, so a run is deterministic; SystemC itself leaves
// the order of processes woken at the same time unspecified (engine_scheduler.h says why it matters).
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace nsim::sim::core {

enum class EventKind : uint8_t {
    Wake,          // queue `a`'s process resumes (its next issue, DMA burst, or end of its wait)
    Signal,        // semaphore `b` of program core `a` is incremented
    SetSemaphore,  // semaphore `b` of program core `a` is set to `c`
};

struct Event {
    uint64_t time = 0;   // picoseconds of simulated time
    uint64_t order = 0;  // scheduling order, breaks ties
    EventKind kind = EventKind::Wake;
    uint32_t a = 0, b = 0, c = 0;
};

class EventQueue {
public:
    void schedule(uint64_t time, EventKind kind, uint32_t a, uint32_t b = 0, uint32_t c = 0) {
        heap_.push(Event{time, next_order_++, kind, a, b, c});
    }
    bool empty() const { return heap_.empty(); }
    const Event& top() const { return heap_.top(); }
    Event pop() {
        Event e = heap_.top();
        heap_.pop();
        return e;
    }
    void clear() { heap_ = {}; }

private:
    struct Later {
        bool operator()(const Event& x, const Event& y) const {
            return x.time != y.time ? x.time > y.time : x.order > y.order;
        }
    };
    std::priority_queue<Event, std::vector<Event>, Later> heap_;
    uint64_t next_order_ = 0;
};

}  // namespace nsim::sim::core
