#include "neuron-sim/progress_bar.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace nsim::tools {
namespace {
constexpr double kShowAfterS = 1.0;
constexpr int kWidth = 30;
}  // namespace

ProgressBar::ProgressBar(std::string label, uint64_t total)
    : label_(std::move(label)), total_(total), terminal_(isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
    if (drawn_) std::fputs("\r\033[K", stderr);
}

void ProgressBar::update(uint64_t done) {
    if (!terminal_ || total_ == 0) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < kShowAfterS) return;
    const int filled = int(kWidth * std::min<uint64_t>(done, total_) / total_);
    fmt::print(stderr, "\r{} [{}{}] {}/{} ({:.0f} s)", label_, std::string(filled, '#'), std::string(kWidth - filled, ' '), done,
               total_, elapsed);
    std::fflush(stderr);
    drawn_ = true;
}

}  // namespace nsim::tools
