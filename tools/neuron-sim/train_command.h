// `neuron-sim train TRAIN.bin --steps N`: a training program from neuron-build bert-train, loaded and
// executed once per optimizer step through the runtime and the emulated driver, printing the BERT
// script's log line per step (LOG <date> - (0, <step>) step_loss : <x>  learning_rate : <y>
// throughput : <z>), then a report: step time, sequences/s, MFU (training.md A2.2), the last step's
// engines, and the program's device memory by kind (weights, gradients, optimizer states, the rest).
// --functional trains for real on labelled sentence pairs (--data, default MRPC of shared/data);
// --save DIR then writes the trained model as a checkpoint `neuron-build bert --weights DIR` loads.
// A program built for several nodes (neuron-build bert-train --nodes M) trains on M instances
// (library/cluster_training.h), spread over the ranks when mpirun starts it (`mpirun -np N
// neuron-sim --instance trn1.32xlarge train X --nodes M`); rank 0 prints, and the report adds the
// cluster's throughput, scaling efficiency and the simulation's host time per step and rank.
#pragma once

#include <cstdint>
#include <string>

#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

struct TrainOptions {
    std::string program;
    uint32_t steps = 10;
    bool functional = false;
    std::string data;   // labelled sentence pairs (MRPC TSV); default: shared/data's
    std::string vocab;  // WordPiece vocabulary; default as run --pairs
    double lr = 5e-5;
    uint32_t warmup_steps = 0;
    double weight_decay = 0.01;
    std::string save;   // checkpoint directory to write after the steps
    bool json = false;
    int64_t nodes = -1; // instances (the program's --nodes; -1: as the program was built)
};

int run_train(const MachineSelection& machine, const TrainOptions& options);

}  // namespace nsim::tools
