// Loading a program onto the simulated machine, separately from executing it: which physical
// NeuronCore runs each program core, and where the program's tensors live. `neuron-sim run` places
// the tensors directly into device and host memory; the runtime allocates them through the driver,
// copies them over PCIe and hands the engines the same ProgramPlacement.
//
// A program's DRAM tensors form one region (TensorInfo::offset is relative to it). Every device the
// program uses holds the region in its home channel, the memory channel next to the program's first
// core on that device: inputs, outputs and scratch live there, once per device. The weights are
// read-only (the validator refuses writes to them), so the region's weights are also copied into the
// channel next to each other core of the program, and every core streams its weights from its own
// channel, as a model loaded per NeuronCore does on the real machine. Its HOST tensors form one
// region in host memory.
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
    unsigned core = 0;            // within the device
    unsigned memory_channel = 0;  // the device-memory channel next to it (ChipSpec::memory_channel_of_core)
};

// One copy of the device region: in channel `channel` of device `device`, `offset` bytes into the channel.
struct DeviceRegion {
    unsigned device = 0;
    unsigned channel = 0;
    uint64_t offset = 0;
    bool home = false;  // the device's copy of every tensor; the others hold only its weights
};

// Where the loader put one instruction stream's encoded instructions: `bytes` bytes in channel
// `channel` of device `device`, `offset` bytes into the channel (sim/core/instruction_fetch.h).
struct StreamCode {
    uint32_t stream = 0;  // index in the program's streams
    unsigned device = 0;
    unsigned channel = 0;
    uint64_t offset = 0;
    uint64_t bytes = 0;
};

// A program whose cores each keep their own state (a data-parallel training program: each core's
// parameters, gradient sums and optimizer states, as torch-neuronx loads the program once per rank)
// says so in its metadata; each program core then has its own whole copy of the device region, in
// the channel next to it (program core i: device_regions[i]), and a host input or output of such a
// program holds each core's copy in turn (driver/runtime's copies).
// (isa::kDeviceRegionMetadata).
bool has_region_per_core(const isa::Container& program);

struct ProgramPlacement {
    bool region_per_core = false;             // see has_region_per_core
    std::vector<PhysicalCore> cores;          // by program core
    std::vector<StreamCode> code;             // the streams' code in device memory; empty: the engines
                                              // run the program's streams as they are
    std::vector<DeviceRegion> device_regions; // as region_copies() lists them
    uint64_t device_region_bytes = 0;
    uint64_t host_region = 0;                 // byte offset of the host region in host memory
    uint64_t host_region_bytes = 0;

    // Devices the program's cores are on, ascending, each once.
    std::vector<unsigned> devices() const;
    // Where program core `core` finds a DRAM tensor of role `role`: its own channel's copy for
    // weights, its device's home copy for everything else (its own copy of everything, with a
    // region per core).
    const DeviceRegion& region_for(unsigned core, isa::TensorRole role) const;
    // The device's home copy (inputs, outputs, scratch and weights).
    const DeviceRegion& home_region(unsigned device) const;
};

// The placement of program cores 0 .. count - 1 alone: those cores, the copies of the device region
// they reach and their streams' code (a timing-only execution that simulates the first device of a
// program whose other devices run the same streams, ExecutionOptions::simulated_cores).
ProgramPlacement first_cores_of(const ProgramPlacement& placement, const isa::Container& program, uint32_t count);

// The (device, channel) copies of the device region a program on `cores` needs: for each device in
// ascending order its home copy first, then the other channels next to its cores; with
// `region_per_core`, one home copy per core, in the cores' order. Offsets are 0; whoever allocates
// the copies sets them.
std::vector<DeviceRegion> region_copies(const std::vector<PhysicalCore>& cores, bool region_per_core = false);

// The program cores on physical cores `first_core`, `first_core` + 1, ... of the machine (device-major).
std::vector<PhysicalCore> consecutive_cores(const config::ChipSpec& chip, unsigned first_core, unsigned count);

// Whether the program can run on the machine `spec` describes, without elaborating it: its NeuronCore
// generation, enough cores from `first_core` on, tensors that fit. Throws RunError otherwise.
void check_program_fits(const isa::Container& program, const config::HostSpec& spec, unsigned first_core = 0,
                        uint64_t device_region = 0, uint64_t host_region = 0);

// Program core i runs on the i-th core of the machine (device-major), from `first_core` on.
// Checks (check_program_fits) that the program is for the machine's NeuronCore generation, that the machine has enough
// cores and that the tensors fit; throws RunError otherwise.
// Every copy of the device region starts `device_region` bytes into its channel.
ProgramPlacement place_program(const isa::Container& program, const Platform& platform, unsigned first_core = 0,
                               uint64_t device_region = 0, uint64_t host_region = 0);

// A load: restarts the stochastic-rounding streams of the placement's cores (a loaded program
// draws from its seed again, platform/rounding_stream.h), then writes every tensor's initial contents
// (weights, constants, inputs that carry data) to where the placement puts it.
void restart_rounding_streams(Platform& platform, const ProgramPlacement& placement);
void load_tensors(const isa::Container& program, const ProgramPlacement& placement, Platform& platform);

// A DRAM tensor's contents, as a host writes an input (into every device's home copy, plus the other
// copies for weights) and reads an output (from the first device's home copy).
void write_device_tensor(Platform& platform, const ProgramPlacement& placement, const isa::TensorInfo& tensor,
                         const void* data, uint64_t size);
void read_device_tensor(Platform& platform, const ProgramPlacement& placement, const isa::TensorInfo& tensor,
                        void* data, uint64_t size);
// Program core `core`'s copy of a DRAM tensor (with a region per core, the core's own).
void write_core_tensor(Platform& platform, const ProgramPlacement& placement, unsigned core, const isa::TensorInfo& tensor,
                       const void* data, uint64_t size);
void read_core_tensor(Platform& platform, const ProgramPlacement& placement, unsigned core, const isa::TensorInfo& tensor,
                      void* data, uint64_t size);

// The bytes of memory channel `channel` of device `device`.
SparseMemory& channel_storage(Platform& platform, unsigned device, unsigned channel);

// The NeuronCore generation number of a chip ("v2" -> 2).
uint32_t generation_of(const config::ChipSpec& chip);

}  // namespace nsim::sim::core
