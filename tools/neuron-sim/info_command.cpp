#include "neuron-sim/info_command.h"

#include <iostream>

#include "platform/platform.h"
#include "platform/platform_description.h"

namespace nsim::tools {

int run_info(const MachineSelection& machine, const InfoOptions& options) {
    const config::HostSpec spec = machine.resolve();
    sim::Platform platform("machine", spec);
    const nlohmann::json description = sim::describe_platform(platform);
    if (options.json)
        std::cout << description.dump(2) << "\n";
    else
        std::cout << sim::format_platform(description);
    return 0;
}

}  // namespace nsim::tools
