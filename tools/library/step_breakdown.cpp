#include "library/step_breakdown.h"

#include <algorithm>

#include "train/training_step.h"

namespace nsim::library {

std::vector<StepPhaseTime> step_breakdown(const std::vector<std::string>& phase_marks,
                                          const sim::core::RunStatistics& stats) {
    if (phase_marks.empty() || stats.iteration_s.empty()) return {};
    const uint32_t last = uint32_t(stats.iteration_s.size() - 1);
    // When the last queue (of every core) passed each mark.
    std::vector<double> passed(phase_marks.size(), 0.0);
    size_t last_reached = phase_marks.size() - 1;  // the phase the time after the marks goes to
    bool reached = false;
    for (const sim::core::MarkTime& m : stats.marks)
        if (m.iteration == last && m.label < passed.size()) {
            passed[m.label] = std::max(passed[m.label], m.time_s);
            last_reached = reached ? std::max<size_t>(last_reached, m.label) : m.label;
            reached = true;
        }
    std::vector<StepPhaseTime> parts;
    for (const char* phase : kernels::train::kStepPhases) parts.push_back({phase, 0.0});
    auto part = [&](const std::string& phase) -> double& {
        for (StepPhaseTime& p : parts)
            if (p.phase == phase) return p.seconds;
        parts.push_back({phase, 0.0});
        return parts.back().seconds;
    };
    double before = 0;
    for (size_t b = 0; b < phase_marks.size(); ++b) {
        const double at = std::max(before, passed[b]);  // a mark no queue reached ends nothing
        part(phase_marks[b]) += at - before;
        before = at;
    }
    part(phase_marks[last_reached]) += std::max(0.0, stats.iteration_s.back() - before);
    return parts;
}

}  // namespace nsim::library
