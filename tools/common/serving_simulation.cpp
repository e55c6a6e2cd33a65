#include "serving_simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <tuple>

#include <fmt/format.h>

namespace nsim::serving {
namespace {

enum class EventKind { Arrival, CopyFree, DelayExpired };

struct Event {
    double time_s;
    uint64_t order;       // ties resolve in the order events were scheduled: deterministic
    EventKind kind;
    uint32_t who;         // client (Arrival) or copy (CopyFree)
    bool operator>(const Event& other) const { return std::tie(time_s, order) > std::tie(other.time_s, other.order); }
};

struct Waiting {
    uint32_t client;
    double sent_s;
};

// Every request keeps its latency (8 bytes) for the percentiles and costs a few events; ten million
// of them is under 100 MB and a few seconds, and ten thousand times more than any percentile needs.
constexpr uint64_t kMostRequests = 10'000'000;

void check(const ServingSetup& setup) {
    if (setup.copies == 0 || setup.max_batch == 0 || setup.clients == 0 || setup.requests_per_client == 0)
        throw std::invalid_argument("copies, batch, clients and requests must all be at least 1");
    if (std::isnan(setup.max_batch_delay_s)) throw std::invalid_argument("the batch delay is not a number");
    if (!(setup.max_batch_delay_s >= 0)) throw std::invalid_argument("the batch delay cannot be negative");
    if (uint64_t(setup.clients) * setup.requests_per_client > kMostRequests)
        throw std::invalid_argument(fmt::format("{} clients x {} requests is more than the {} requests one serving "
                                                "simulation keeps latencies for",
                                                setup.clients, setup.requests_per_client, kMostRequests));
}

}  // namespace

double ServingResult::latency_percentile_s(double percentile) const {
    if (latencies_s.empty()) return 0;
    std::vector<double> sorted = latencies_s;
    std::sort(sorted.begin(), sorted.end());
    const size_t rank = size_t(std::ceil(percentile / 100.0 * double(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

ServingResult simulate_serving(const ServingSetup& setup, const ExecutionTime& execution_time) {
    check(setup);
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
    uint64_t order = 0;
    auto schedule = [&](double t, EventKind kind, uint32_t who) { events.push({t, order++, kind, who}); };

    std::vector<uint32_t> sent(setup.clients, 0);
    for (uint32_t c = 0; c < setup.clients; ++c) schedule(0, EventKind::Arrival, c);
    std::vector<bool> idle(setup.copies, true);
    std::deque<Waiting> queue;
    ServingResult result;
    double timer_armed_for = -1;

    auto dispatch = [&](double now) {
        for (uint32_t copy = 0; copy < setup.copies && !queue.empty(); ++copy) {
            if (!idle[copy]) continue;
            const bool full = queue.size() >= setup.max_batch;
            const double deadline = queue.front().sent_s + setup.max_batch_delay_s;
            if (!full && now < deadline) {
                if (timer_armed_for != deadline) schedule(deadline, EventKind::DelayExpired, 0), timer_armed_for = deadline;
                return;
            }
            const uint32_t real = uint32_t(std::min<size_t>(queue.size(), setup.max_batch));
            const double done = now + execution_time(real);
            for (uint32_t i = 0; i < real; ++i) {
                const Waiting request = queue.front();
                queue.pop_front();
                result.latencies_s.push_back(done - request.sent_s);
                if (sent[request.client] < setup.requests_per_client) schedule(done, EventKind::Arrival, request.client);
            }
            ++result.executions;
            result.padded_slots += setup.max_batch - real;
            result.makespan_s = std::max(result.makespan_s, done);
            idle[copy] = false;
            schedule(done, EventKind::CopyFree, copy);
        }
    };

    while (!events.empty()) {
        const double now = events.top().time_s;
        // Everything that happens at this instant first, so a batch sees every request sent then.
        while (!events.empty() && events.top().time_s == now) {
            const Event e = events.top();
            events.pop();
            if (e.kind == EventKind::Arrival) {
                ++sent[e.who];
                queue.push_back({e.who, now});
            } else if (e.kind == EventKind::CopyFree) {
                idle[e.who] = true;
            }
        }
        dispatch(now);
    }
    result.requests = result.latencies_s.size();
    result.inferences_per_s = result.makespan_s > 0 ? double(result.requests) / result.makespan_s : 0;
    return result;
}

}  // namespace nsim::serving
