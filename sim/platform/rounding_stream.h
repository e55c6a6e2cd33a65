// Where a physical NeuronCore's stochastic-rounding generator is in its stream of random bits
// (training.md A2.4: the runtime seeds it once, NEURON_RT_STOCHASTIC_ROUNDING_SEED, and the stream
// continues from execution to execution, so the micro-steps and optimizer steps of a training run
// draw new bits each time). The core keeps it; the engines of each execution continue it
// (sim/core/semantics/rounding_state.h). A program load or a reset of the core starts it again from
// the seed, so the same program, seed and sequence of executions draw the same bits.
#pragma once

#include <cstdint>

namespace nsim::sim {

struct RoundingStream {
    bool seeded = false;  // a set_rounding mode=stochastic has run since the last restart
    uint32_t seed = 0;
    uint64_t writes = 0;  // narrow writes rounded since then: the stream's position
    void restart() { *this = RoundingStream{}; }
};

}  // namespace nsim::sim
