// The simulated host's kernel module by name, and what its users are told to do about it: load it
// when it is not, reload it when a device is INVALID (a reload re-probes and resets every device,
// the documented recovery of driver.md 4). The commands name the host, so that they act on this one
// however many hosts the state home holds. Header-only, so that the host-state viewers share it.
#pragma once

#include <string>

namespace nsim::driver {

// As rmmod and modprobe take it.
inline constexpr const char* kModuleName = "neuron";

inline std::string load_advice(const std::string& instance) {
    return "load it with: neuron-sim --instance " + instance + " modprobe neuron";
}
inline std::string reload_advice(const std::string& instance) {
    return "recover with: neuron-sim --instance " + instance + " rmmod neuron && neuron-sim --instance " + instance +
           " modprobe neuron";
}

}  // namespace nsim::driver
