// Loading a program onto the simulated machine, separately from executing it: which physical
// NeuronCore runs each program core, and where the program's tensors live. `neuron-sim run` places
// the tensors directly into device and host memory; the runtime (driver issue) will instead allocate
// and DMA them over PCIe and hand the engines the same ProgramPlacement.
//
// A program's DRAM tensors form one region (TensorInfo::offset is relative to it) shared by all of its
// cores; every device the program uses holds that region at the same place in its first memory
// channel. Its HOST tensors form one region in host memory.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "isa/container.h"
#include "platform/platform.h"

namespace nsim::sim::core {

// A program the machine cannot run as asked (wrong generation, too few cores, does not fit). what()
// is one line.
class RunError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct PhysicalCore {
    unsigned device = 0;
    unsigned core = 0;   // within the device
};

struct ProgramPlacement {
    std::vector<PhysicalCore> cores;  // by program core
    uint64_t device_region = 0;       // byte offset of the device region in memory channel 0
    uint64_t device_region_bytes = 0;
    uint64_t host_region = 0;         // byte offset of the host region in host memory
    uint64_t host_region_bytes = 0;

    // Devices the program's cores are on, ascending, each once.
    std::vector<unsigned> devices() const;
};

// Program core i runs on the i-th core of the machine (device-major), from `first_core` on.
// Checks that the program is for the machine's NeuronCore generation, that the machine has enough
// cores and that the tensors fit; throws RunError otherwise.
ProgramPlacement place_program(const isa::Container& program, const Platform& platform, unsigned first_core = 0,
                               uint64_t device_region = 0, uint64_t host_region = 0);

// Writes every tensor's initial contents (weights, constants, inputs that carry data) to where the
// placement puts it.
void load_tensors(const isa::Container& program, const ProgramPlacement& placement, Platform& platform);

// The NeuronCore generation number of a chip ("v2" -> 2).
uint32_t generation_of(const config::ChipSpec& chip);

}  // namespace nsim::sim::core
