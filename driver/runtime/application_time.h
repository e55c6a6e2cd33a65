// The application's own time between runtime calls: its code and its sleeps, which run in wall time
// on this host and which the simulated clock does not see (the runtime's calls move the simulated
// clock instead). neuron-top counts it as idle time of the cores (activity_publisher.h). Every public
// runtime call holds a Call for as long as it runs; the wall time from one call's end to the next
// call's start is the application's.
#pragma once

#include <chrono>
#include <optional>

namespace nsim::runtime {

class ApplicationTime {
public:
    class Call {
    public:
        explicit Call(ApplicationTime& time) : time_(time) { time_.enter(); }
        ~Call() { time_.leave(); }
        Call(const Call&) = delete;
        Call& operator=(const Call&) = delete;

    private:
        ApplicationTime& time_;
    };

    // Seconds the application spent outside runtime calls since the first call.
    double total_s() const { return total_s_; }

private:
    using Clock = std::chrono::steady_clock;
    void enter() {
        if (depth_++ == 0 && left_) total_s_ += std::chrono::duration<double>(Clock::now() - *left_).count();
    }
    void leave() {
        if (--depth_ == 0) left_ = Clock::now();
    }

    int depth_ = 0;                           // calls in progress (one call may make another)
    std::optional<Clock::time_point> left_;   // when the last outermost call returned
    double total_s_ = 0;
};

}  // namespace nsim::runtime
