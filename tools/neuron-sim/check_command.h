// `neuron-sim check PROG.bin` and `run --check`: the race checker (sim/race_check) on a program,
// its findings one per line.
#pragma once

#include <ostream>
#include <string>

#include "isa/container.h"
#include "race_check/race_checker.h"

namespace nsim::tools {

// Prints the findings (at most a screenful, then how many more) to `out`; returns how many there are.
// `coverage`, when given, says how many cores' graphs were not checked again (race_checker.h).
size_t print_check_findings(const isa::Container& program, const std::string& name, std::ostream& out,
                            sim::race_check::CheckCoverage* coverage = nullptr);

// The `check` subcommand: exit code 0 when clean, 1 when anything was found.
int check_program(const std::string& path);

}  // namespace nsim::tools
