// Where a training step's phases end (training_step.h): a mark on every queue of a graph's core whose
// label is its number, and the phase's name, numbered across the program's graphs so that a label
// names one mark of one graph (TrainingProgram::phase_marks).
#pragma once

#include <string>
#include <vector>

#include "builder/core_builder.h"

namespace nsim::kernels::train {

struct PhaseMarks {
    builder::CoreBuilder& core;
    std::vector<std::string>& names;
    void end(const char* phase) {
        core.mark(uint32_t(names.size()));
        names.push_back(phase);
    }
};

}  // namespace nsim::kernels::train
