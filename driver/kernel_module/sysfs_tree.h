// The sysfs-style tree and /dev nodes the driver publishes in the host state directory (driver.md 10):
//   sys/class/neuron_device/neuronN/{reset, core_count, connected_devices}
//   sys/class/neuron_device/neuronN/info/{serial_number, architecture/{arch_type,instance_type,device_name}}
//   sys/class/neuron_device/neuronN/stats/hardware/{mem_ecc_corrected, mem_ecc_uncorrected, sram_ecc_uncorrected}
//   sys/class/neuron_device/neuronN/neuron_coreK/stats/other_info/{model_load_count, reset_req_count,
//       reset_fail_count, inference_count}
//   dev/neuronN
#pragma once

#include "config/host_spec.h"
#include "host_state.h"

namespace nsim::driver {

void publish_sysfs(const HostState& state, const config::HostSpec& spec, const MachineRecord& machine);
void remove_sysfs(const HostState& state);

}  // namespace nsim::driver
