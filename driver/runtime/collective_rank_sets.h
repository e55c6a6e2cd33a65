// The rank sets the runtime runs collectives on (InstanceSpec::collective_rank_counts, from the
// instance's config): on trn1.32xlarge 2, 8, 16 or 32 ranks, a group of N starting at a NeuronCore
// whose index is a multiple of N (so 16 ranks on NeuronCores 0-15 or 16-31). nrt_load refuses a
// program with any other group, as the real runtime does.
#pragma once

#include <string>
#include <vector>

#include "config/host_spec.h"
#include "core/program_placement.h"
#include "isa/container.h"

namespace nsim::runtime {

// Empty when `spec` runs every collective of `program` with program core i on `cores[i]`; otherwise
// why not, in one line naming the first group it does not run.
std::string refused_collective(const isa::Container& program, const std::vector<sim::core::PhysicalCore>& cores,
                               const config::HostSpec& spec);

}  // namespace nsim::runtime
