#include "neuron-sim/check_command.h"

#include <iostream>

#include <fmt/format.h>

#include "isa/container_io.h"
#include "library/program_preparation.h"
#include "race_check/race_checker.h"

namespace nsim::tools {
namespace {

constexpr size_t kFindingsShown = 20;

}  // namespace

size_t print_check_findings(const isa::Container& program, const std::string& name, std::ostream& out,
                            sim::race_check::CheckCoverage* coverage) {
    const std::vector<sim::race_check::Finding> findings = sim::race_check::check(program, coverage);
    for (size_t i = 0; i < findings.size() && i < kFindingsShown; ++i) out << name << ": " << findings[i].message << "\n";
    if (findings.size() > kFindingsShown) out << fmt::format("{}: ... and {} more\n", name, findings.size() - kFindingsShown);
    return findings.size();
}

int check_program(const std::string& path) {
    const isa::Container program = library::read_program(path);
    size_t instructions = 0;
    for (const isa::InstructionStream& s : program.streams) instructions += s.instructions.size();
    sim::race_check::CheckCoverage coverage;
    const size_t found = print_check_findings(program, path, std::cout, &coverage);
    // A core graph: one graph's streams on one core.
    const std::string repeated =
        coverage.repeated == 0 ? ""
                               : fmt::format("{} of its {} core graphs repeat a clean core's instructions and were not checked again",
                                             coverage.repeated, coverage.core_graphs);
    if (found == 0)
        std::cout << fmt::format("{}: clean: no races, unwritten reads, overlapping tensors or unsatisfiable waits ({} instructions "
                                 "on {} queues of {} core{}{}{})\n",
                                 path, instructions, program.streams.size(), program.cores_needed, program.cores_needed == 1 ? "" : "s",
                                 repeated.empty() ? "" : "; ", repeated);
    else if (!repeated.empty())
        std::cout << path << ": " << repeated << "\n";
    return found == 0 ? 0 : 1;
}

}  // namespace nsim::tools
