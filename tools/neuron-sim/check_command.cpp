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

size_t print_check_findings(const isa::Container& program, const std::string& name, std::ostream& out) {
    const std::vector<sim::race_check::Finding> findings = sim::race_check::check(program);
    for (size_t i = 0; i < findings.size() && i < kFindingsShown; ++i) out << name << ": " << findings[i].message << "\n";
    if (findings.size() > kFindingsShown) out << fmt::format("{}: ... and {} more\n", name, findings.size() - kFindingsShown);
    return findings.size();
}

int check_program(const std::string& path) {
    const isa::Container program = library::read_program(path);
    size_t instructions = 0;
    for (const isa::InstructionStream& s : program.streams) instructions += s.instructions.size();
    const size_t found = print_check_findings(program, path, std::cout);
    if (found == 0)
        std::cout << fmt::format("{}: clean: no races, unwritten reads, overlapping tensors or unsatisfiable waits ({} instructions "
                                 "on {} queues of {} core{})\n",
                                 path, instructions, program.streams.size(), program.cores_needed, program.cores_needed == 1 ? "" : "s");
    return found == 0 ? 0 : 1;
}

}  // namespace nsim::tools
