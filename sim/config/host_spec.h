// The machine description read from configs/: what a chip generation is made of and how an
// instance wires its devices. Every hardware number the simulator uses reaches the code through
// these structs; the numbers themselves (and their sources) live only in configs/*.yaml.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/device_interface_spec.h"

namespace nsim::config {

// One compute engine of a NeuronCore (tensor/PE, scalar/ACT, vector/DVE, gpsimd/POOL, sync).
struct EngineSpec {
    std::string name;                 // "tensor", "vector", "scalar", "gpsimd", "sync"
    double clock_hz = 0;              // engine clock
    uint32_t elements_per_cycle = 0;  // streaming width (elements read per cycle)
    uint32_t min_instruction_cycles = 0;      // MIN_II: the shortest an instruction occupies the engine
    uint32_t instruction_overhead_cycles = 0; // fixed start-up cost added to every instruction (GpSimd)
    // Streaming width for 2-byte element types (bf16/fp16) where the engine has a faster mode;
    // 0 = same as elements_per_cycle. Optional.
    uint32_t elements_per_cycle_16bit = 0;
    // Cycles from the end of an instruction's occupancy until its results are visible in SBUF/PSUM:
    // its semaphore signal, and the earliest an instruction of the same engine that reads them may
    // issue. 0 = the core's sram_access_latency_cycles. Optional.
    uint32_t result_latency_cycles = 0;
};

// The systolic array of the tensor engine and its tile limits.
struct TensorEngineSpec {
    uint32_t pe_rows = 0;             // contraction (partition) dimension of the array
    uint32_t pe_cols = 0;             // stationary free dimension of the array
    uint32_t max_contraction = 0;     // partition size of a matmul tile
    uint32_t max_stationary_free = 0; // free size of the stationary tile
    uint32_t max_moving_free = 0;     // free size of the moving tile
    // Peak dense throughput of one core per data type name ("bf16", "fp32", ...), FLOP/s (or OP/s).
    std::map<std::string, double> peak_flops;
    // Timing of the array (sim/core/tensor_engine_timing.cpp; the formula is written in configs/).
    // Optional in a file: an absent key takes the neutral value given here and in configs/README.md.
    uint32_t stationary_load_columns_per_cycle = 1; // LoadStationary rate, stationary columns per cycle
    uint32_t pipeline_io_cycles = 0;  // register stages outside the PE grid (operand in, PSUM out)
    // Per data type name: cycles one moving column occupies the array (absent: 1).
    std::map<std::string, uint32_t> moving_cycles_per_column;
    // Per data type name: contraction rows one PE holds, 2 for double-row modes (absent: 1).
    std::map<std::string, uint32_t> contraction_rows_per_pe;
    // Per data type name: cycles per column in a transpose through the array (absent: the matmul's).
    std::map<std::string, uint32_t> transpose_cycles_per_column;
};

// A partitioned on-chip memory (SBUF or PSUM).
struct OnChipMemorySpec {
    uint32_t partitions = 0;
    uint64_t bytes_per_partition = 0;
    uint32_t banks = 0;               // PSUM accumulation banks per partition; 0 where not banked
    uint64_t total_bytes() const { return uint64_t(partitions) * bytes_per_partition; }
};

struct NeuronCoreSpec {
    std::string name;                 // "NeuronCore-v2"
    std::string version;              // "v1", "v2", "v3"
    std::vector<EngineSpec> engines;
    TensorEngineSpec tensor;
    OnChipMemorySpec sbuf;
    OnChipMemorySpec psum;
    uint32_t semaphores = 0;
    uint32_t dma_engines = 0;         // DMA engines serving one core
    uint32_t dma_queues_per_engine = 0;
    double dma_engine_bytes_per_s = 0;    // one engine's peak, streaming alone
    // Optional, 0 = none: each engine's sustained rate when every DMA engine of the device streams at
    // once. The device's engines share a fabric that moves at most this x their number (all cores'):
    // one busy core alone may take more than its even share.
    double dma_engine_sustained_bytes_per_s = 0;
    double dma_transfer_overhead_s = 0;   // fixed cost of one DMA (descriptor setup, sync, start)
    double dma_descriptor_s = 0;          // a DMA engine's time to process one descriptor (optional, 0 = free)
    // Engine cost model (sim/core/cost_model.h); all optional, 0 = not modelled.
    uint32_t sram_access_latency_cycles = 0;  // static SBUF/PSUM access overhead per instruction (engine cycles)
    uint32_t sram_full_rate_stride_bytes = 0; // innermost stride up to which SBUF/PSUM stream at full rate
    uint32_t control_instruction_cycles = 0;  // a sequencer-only instruction (nop, sem_set, barrier)
    uint32_t bn_aggr_cycles_per_3_elements = 0; // bn_aggr: cycles per 3 input elements per partition
    // Engines (names as in `engines`) that reach SBUF / PSUM through one shared port and so take
    // turns: an instruction of one of them that accesses the memory waits while another holds it.
    // Empty = every engine has its own port. Optional.
    std::vector<std::string> sbuf_shared_port_engines;
    std::vector<std::string> psum_shared_port_engines;
};

// A PCI base address register: which index, how large, what it exposes.
struct BarSpec {
    uint32_t index = 0;
    uint64_t size_bytes = 0;          // power of two, as PCI requires
    std::string role;                 // "registers", "neuron-core-window", "device-memory"
};

struct PciSpec {
    uint32_t vendor_id = 0;
    uint32_t device_id = 0;
    uint32_t revision = 0;
    std::vector<BarSpec> bars;
};

// The host link of a device.
struct PcieLinkSpec {
    uint32_t generation = 0;
    uint32_t lanes = 0;
    double bytes_per_s = 0;           // usable bandwidth in each direction
    double latency_s = 0;             // one-way transaction latency
};

// Device DRAM/HBM.
struct DeviceMemorySpec {
    std::string type;                 // "DDR4", "HBM2e", ...
    uint32_t channels = 0;
    uint64_t channel_bytes = 0;       // usable capacity of one channel; need not be a power of two
    uint64_t channel_stride_bytes = 0; // device-address distance between channels; power of two
    double bytes_per_s = 0;           // total bandwidth of all channels of the device
    double latency_s = 0;             // access latency
    // All-bank refresh: every refresh_interval_s (tREFI) a channel serves nothing for refresh_time_s
    // (tRFC). 0: no refresh that stops the channel (per-bank refresh hides it, or none is modelled).
    double refresh_interval_s = 0;
    double refresh_time_s = 0;
    // What one channel sustains: its share of bytes_per_s less the share of time its refreshes stop
    // it. Spread over every transfer rather than placed at absolute times (a DMA burst is shorter
    // than tREFI, and an execution's time then does not depend on when it started).
    double channel_bytes_per_s() const {
        const double peak = bytes_per_s / channels;
        return refresh_interval_s > 0 ? peak * (1 - refresh_time_s / refresh_interval_s) : peak;
    }
    uint64_t total_bytes() const { return uint64_t(channels) * channel_bytes; }
};

// Device-to-device links (NeuronLink).
struct LinkSpec {
    std::string version;              // "NeuronLink-v2"
    uint32_t ports = 0;               // links per chip
    double bytes_per_s = 0;           // per link, each direction
    double latency_s = 0;
    // Rings a collective runs at once, its data split evenly over them, alternate rings going the
    // opposite way round (sim/core/engine_run_collectives.cpp); each ring on its own DMA engine.
    uint32_t collective_rings = 1;
};

struct ChipSpec {
    std::string name;                 // "inferentia2"
    std::string product;              // "Inferentia2"
    std::string generation_file;      // the configs/chips file it came from
    NeuronCoreSpec core;
    uint32_t cores_per_device = 0;
    // Physical cores grouped into one logical NeuronCore by default (LNC); 1 where the chip has no LNC.
    uint32_t logical_neuroncore_config = 1;
    PciSpec pci;
    PcieLinkSpec pcie;
    DeviceMemorySpec memory;
    LinkSpec link;
    // Optional: what the firmware model and the emulated driver need (device_interface_spec.h).
    RegisterMapSpec registers;
    FirmwareSpec firmware;
    DriverSpec driver;

    // The device-memory channel next to physical core `core`: consecutive cores share the channels
    // evenly (trn2: each of the 4 HBM banks serves 2 physical cores; trn1/inf2: one HBM per core;
    // inf1: 2 DDR channels for 4 cores). The runtime puts a core's memory there.
    uint32_t memory_channel_of_core(uint32_t core) const {
        return cores_per_device ? uint32_t(uint64_t(core) * memory.channels / cores_per_device) : 0;
    }
};

// The instance's EFA network interfaces, which join identical instances into a cluster (multi-node
// collectives, sim/cluster/). devices == 0: the instance has no EFA and runs on its own.
struct EfaSpec {
    uint32_t devices = 0;             // EFA devices, each its own network channel
    double bytes_per_s = 0;           // per device, each direction
    double latency_s = 0;             // one inter-node hop: a send's start to its data at the peer
    std::string collective_algorithm; // how a collective spans instances: "hierarchical" (sim/cluster)
};

struct InstanceSpec {
    std::string name;                 // "inf1.2xlarge"
    std::string chip;                 // key into the chip table
    uint32_t devices = 0;
    uint32_t vcpus = 0;
    uint64_t host_memory_bytes = 0;
    double host_copy_bytes_per_s = 0;             // one host thread streaming memory (host-side embedding); 0 = unknown
    std::vector<std::string> pci_bdfs;            // one per device, "bb:dd.f"
    std::vector<std::vector<uint32_t>> connected_to; // per device: the devices it has a link to
    std::string topology;                         // "none", "chain", "ring", "torus" or "custom"
    std::vector<uint32_t> topology_shape;         // torus: {rows, cols}; empty otherwise
    double link_bytes_per_s = 0;                  // instance override of chip.link.bytes_per_s; 0 = none
    // The rank counts the runtime runs a collective on, each group starting at a NeuronCore whose
    // index is a multiple of its rank count; empty: any group of the program's cores.
    std::vector<uint32_t> collective_rank_counts;
    // NUMA: per node, its vCPUs, ascending; empty on a host with one node that Linux leaves unnumbered.
    std::vector<std::vector<uint32_t>> numa_node_cpus;
    std::vector<int32_t> device_numa_nodes;       // per device, its NUMA node; -1 where there is none
    EfaSpec efa;                                  // devices 0: no EFA
};

// Everything needed to elaborate one simulated host.
struct HostSpec {
    InstanceSpec instance;
    ChipSpec chip;
};

}  // namespace nsim::config
