// A training step's time split into its phases (forward, backward, accumulation, all-reduce,
// optimizer), from the simulated instruction stream: the program marks where each phase ends
// (kernels/train/training_step.h, the mark instruction of opcodes.def) and the simulator records when
// each queue reached each mark (RunStatistics::marks). The phase ending at mark b lasted from the
// moment the last queue passed mark b-1 (the iteration's start, for the first) to the moment the last
// one passed mark b; what follows the last mark the run reached counts for that mark's phase (a
// program of several graphs numbers its marks across them, and one execution runs one graph). So the parts are never
// negative and sum to the step's engine time; where engines overlap two phases, the later mark takes
// the overlap (as a profiler's phase boundaries do).
#pragma once

#include <string>
#include <vector>

#include "core/run_statistics.h"

namespace nsim::library {

struct StepPhaseTime {
    std::string phase;
    double seconds = 0;
};

// `phase_marks`: by mark label, the phase each mark ends (kernels::train::step_phase_marks). The parts
// come in kernels::train::kStepPhases order, each listed once (0 s for a phase the program does not
// have, as the all-reduce of one core), then any other phase the marks name. The run's last
// iteration; empty when the program has no marks.
std::vector<StepPhaseTime> step_breakdown(const std::vector<std::string>& phase_marks,
                                          const sim::core::RunStatistics& stats);

}  // namespace nsim::library
