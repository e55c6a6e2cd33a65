// Container metadata a loader reads: "device_region" "per core" gives each program core its own copy
// of the device region (a data-parallel training program's per-core state: sim/core/program_placement.h).
#pragma once

namespace nsim::isa {

inline constexpr const char* kDeviceRegionMetadata = "device_region";
inline constexpr const char* kRegionPerCore = "per core";

}  // namespace nsim::isa
