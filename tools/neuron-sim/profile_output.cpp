#include "neuron-sim/profile_output.h"

#include <fstream>
#include <iostream>

#include "common/tool_main.h"
#include "library/library_error.h"
#include "profile/profile_summary.h"

namespace nsim::tools {

bool write_profile(const RunOptions& options, const config::HostSpec& spec, const isa::Container& program,
                   const sim::core::RunStatistics& engines) {
    if (options.profile_file.empty() && !options.profile) return false;
    const sim::profile::ProfileSummary profile = sim::profile::summarize(engines, program, spec.chip);
    if (!options.profile_file.empty()) {
        errno = 0;
        std::ofstream out(options.profile_file);
        out << sim::profile::profile_json(profile).dump(2) << "\n";
        out.close();
        if (!out) throw UserError(library::cannot_write("profile file", options.profile_file).what());
    }
    if (!options.profile) return false;
    if (options.json) std::cout << sim::profile::profile_json(profile).dump(2) << "\n";
    else std::cout << sim::profile::profile_text(profile);
    return true;
}

}  // namespace nsim::tools
