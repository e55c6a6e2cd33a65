// The simulated host's kernel module by name, and what its users are told to do about it: load it
// when it is not, reload it when a device is INVALID (a reload re-probes and resets every device,
// the documented recovery of driver.md 4). Header-only, so that the host-state viewers share it.
#pragma once

namespace nsim::driver {

// As rmmod and modprobe take it.
inline constexpr const char* kModuleName = "neuron";
inline constexpr const char* kLoadAdvice = "load it with: neuron-sim modprobe neuron";
inline constexpr const char* kReloadAdvice = "recover with: neuron-sim rmmod neuron && neuron-sim modprobe neuron";

}  // namespace nsim::driver
