// `neuron-sim --instance trn1.32xlarge nccom-test all_reduce -r 32 -b 8 -e 1G -f 2 [-d fp32] [-n 20]
// [-w 5]`: nccom-test's table (training.md A1.6) from collectives simulated on the instance
// (library/collective_benchmark.h), one row per size and the average bus bandwidth.
#pragma once

#include "library/collective_benchmark.h"
#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

int run_nccom_test(const MachineSelection& machine, const library::CollectiveBenchmarkRequest& request);

}  // namespace nsim::tools
