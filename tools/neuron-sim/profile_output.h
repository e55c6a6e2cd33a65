// `neuron-sim profile PROG.bin` and `neuron-sim run --profile FILE`: the last execution summarised in
// neuron-profile's terms (sim/profile/profile_summary.h).
#pragma once

#include "config/host_spec.h"
#include "core/run_statistics.h"
#include "isa/container.h"
#include "neuron-sim/run_command.h"

namespace nsim::tools {

// Writes --profile FILE (JSON) when asked; for `profile`, prints the summary (text, or JSON with
// --json) and returns true: the caller prints nothing else. UserError when the file cannot be written.
bool write_profile(const RunOptions& options, const config::HostSpec& spec, const isa::Container& program,
                   const sim::core::RunStatistics& engines);

}  // namespace nsim::tools
