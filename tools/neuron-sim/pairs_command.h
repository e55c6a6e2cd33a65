// `neuron-sim run bert.bin --functional --pairs FILE.tsv [--predictions OUT.tsv] [--vocab FILE]`:
// classifies MRPC-format sentence pairs on the simulated device through the runtime, as the TorchServe
// demo does on real hardware: each pair tokenized ([CLS] a [SEP] b [SEP], truncated or padded to the
// model's sequence length), embedded on the host or the device as the model was built, executed in
// batches of every copy's compiled batch at once (the last one padded with dummy sequences that are
// not counted), the logits read back. Writes one line per pair and reports accuracy and F1 against
// the file's labels (1 = paraphrase, 0 = not paraphrase) and the simulated time.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/container.h"
#include "neuron-sim/machine_selection.h"
#include "neuron-sim/run_command.h"

namespace nsim::tools {

int run_pairs(const MachineSelection& machine, const RunOptions& options, const isa::Container& program);

}  // namespace nsim::tools
