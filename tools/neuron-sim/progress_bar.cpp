#include "neuron-sim/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace nsim::tools {
namespace {
constexpr double kShowAfterS = 1.0;
// Redraws at most this often: progress can be reported thousands of times a second.
constexpr double kRedrawPeriodS = 0.1;
constexpr int kWidth = 30;

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}
}  // namespace

ProgressBar::ProgressBar(std::string label, uint64_t total_steps)
    : label_(std::move(label)), total_(total_steps), terminal_(isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}

ProgressBar::~ProgressBar() {
    if (drawn_) std::fputs("\r\033[K", stderr);
}

void ProgressBar::update(double done) {
    if (!terminal_ || total_ == 0) return;
    const Clock::time_point now = Clock::now();
    const double elapsed = seconds_between(start_, now);
    if (elapsed < kShowAfterS || (drawn_ && seconds_between(last_draw_, now) < kRedrawPeriodS)) return;
    const double fraction = std::clamp(done / double(total_), 0.0, 1.0);
    const int filled = int(kWidth * fraction);
    fmt::print(stderr, "\r{} [{}{}] {:3d}% ({} of {} done, {:.0f} s)", label_, std::string(filled, '#'),
               std::string(kWidth - filled, ' '), int(100 * fraction), uint64_t(std::floor(std::max(done, 0.0))), total_, elapsed);
    std::fflush(stderr);
    drawn_ = true;
    last_draw_ = now;
}

}  // namespace nsim::tools
