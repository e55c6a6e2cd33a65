// An nrt-style runtime (driver.md 12) for one process of the simulated host, on top of the emulated
// driver: nrt_init claims NeuronCores (NEURON_RT_VISIBLE_CORES / NEURON_RT_NUM_CORES) and resets
// them, nrt_load validates a program container, allocates device memory and copies weights and
// instruction streams over PCIe through the driver's DMA rings, tensors are allocated and copied the
// same way. nrt_load also tells the first core's sequencer what to run (a ModelExecutor over the
// loaded program); nrt_execute rings that core's doorbell through the driver and waits for the
// device's notification in the core's notification queue, so every execution goes through the
// driver and the device (driver/kernel_module/notification_queue.h). nrt_close releases everything.
// Every call returns an NrtStatus; last_error() holds the one-line message of the last failure, in
// the real runtime's words where it has them ("NeuronCore(s) not available - Requested:nc1-nc1 ...").
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "activity_publisher.h"
#include "application_time.h"
#include "config/host_spec.h"
#include "isa/container.h"
#include "host_trace.h"
#include "model_executor.h"
#include "neuron_driver.h"
#include "nrt_status.h"
#include "simulated_host.h"

namespace nsim::runtime {

struct RuntimeOptions {
    std::filesystem::path home;                 // host state home; empty: HostState::default_home()
    // Unset: read from the environment (NEURON_RT_VISIBLE_CORES, NEURON_RT_NUM_CORES, NEURON_RT_EXEC_TIMEOUT).
    std::optional<std::string> visible_cores;
    std::optional<std::string> num_cores;
    std::optional<double> exec_timeout_s;
    std::optional<std::string> process_tag;     // unset: NEURON_PROCESS_TAG (neuron-top, neuron-monitor); empty: the pid
    bool reset_cores = true;                    // the runtime resets its cores at init (driver.md 12)
};

enum class TensorPlacement { Device, Host, Virtual };

struct Tensor {
    std::string name;
    TensorPlacement placement = TensorPlacement::Device;
    uint32_t vnc = 0;
    uint64_t size = 0;
    uint64_t handle = 0;                        // device memory (driver handle)
    std::vector<uint8_t> host;                  // host memory
};

// Tensors by name, as nrt_tensor_set_t.
struct TensorSet {
    std::map<std::string, Tensor*> tensors;
};

struct Model {
    uint32_t id = 0;
    std::string name;
    uint32_t vnc = 0;                           // first logical core
    isa::Container program;
    LoadedProgram loaded;
    std::vector<uint64_t> handles;              // device and host memory it owns
    std::vector<uint64_t> region_handles;       // the DRAM tensors' region: one per loaded.placement.device_regions
    uint64_t host_region_handle = 0;
    double load_time_s = 0;                     // simulated: validation, allocation and every DMA
    uint64_t load_started_ps = 0;               // simulated host time nrt_load began (the trace's load slice)
    uint64_t device_bytes = 0;
    uint64_t dma_bytes = 0;
    std::vector<std::vector<double>> flops_per_core;  // by graph: matmul work of one execution, by program core
    // By graph (a program of several graphs; empty for one): the tensors its instructions name, by index;
    // an execution of that graph copies those of its inputs and outputs.
    std::vector<std::vector<bool>> tensors_of_graph;
    // Whether the execution of request.graph copies tensor `index` (if it is an input or output).
    bool graph_uses(size_t index) const { return tensors_of_graph.empty() || tensors_of_graph.at(request.graph)[index]; }
    ExecutionRequest request;                   // what the next doorbell runs with (request.graph: which graph)
    ExecutionResult last_result;                // what the sequencer's last run reported
};

class Runtime {
public:
    // Elaborates this process's simulated host (one per process).
    Runtime(const config::HostSpec& spec, RuntimeOptions options = {});
    ~Runtime();
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    NrtStatus init();
    void close();
    NrtStatus load(const std::vector<uint8_t>& neff, int32_t vnc, Model** model);
    // The same for a program its caller has read from its container bytes already (a tool that read
    // the file to check it first): the file is not read and decoded a second time. Still validated.
    NrtStatus load(isa::Container program, int32_t vnc, Model** model);
    NrtStatus unload(Model* model);
    NrtStatus execute(Model* model, const TensorSet& inputs, TensorSet* outputs);
    // One execution of the program's graph `graph` (isa::Container::graphs, FORMAT.md §4.6; "" is graph 0):
    // its inputs in, its streams on the engines, its outputs out. A name the program does not have is
    // NrtStatus::Invalid, in one line naming the program's graphs.
    NrtStatus execute(Model* model, const std::string& graph, const TensorSet& inputs, TensorSet* outputs);
    // The next execute() is traced into `writer` (null: none), once: the model's load, the call's host
    // side (host_trace.h) and the engines' slices; the writer's window is measured from the call's start.
    void trace_next_execution(sim::core::TraceWriter* writer) { trace_next_ = writer; }

    NrtStatus tensor_allocate(TensorPlacement placement, int32_t vnc, uint64_t size, const std::string& name, Tensor** tensor);
    void tensor_free(Tensor** tensor);
    NrtStatus tensor_write(Tensor* tensor, const void* data, uint64_t offset, uint64_t size);
    NrtStatus tensor_read(const Tensor* tensor, void* data, uint64_t offset, uint64_t size);

    uint32_t total_vnc_count() const;
    uint32_t visible_vnc_count() const { return uint32_t(claimed_.size()); }
    const std::vector<uint32_t>& claimed_cores() const { return claimed_; }

    const std::string& last_error() const { return last_error_; }
    void set_executor(std::unique_ptr<ModelExecutor> executor) { executor_ = std::move(executor); }

    sim::Platform& platform() { return host_->platform(); }
    driver::NeuronDriver& driver() { return *driver_; }
    driver::HostState& state() { return *state_; }

private:
    NrtStatus fail(NrtStatus status, const std::string& where, const std::string& message);
    NrtStatus check_usable(const std::string& where);
    // Physical cores of logical core `vnc`, and the logical core of a physical one.
    std::vector<driver::CoreId> physical_cores(uint32_t vnc) const;
    uint32_t cores_per_vnc() const;
    uint32_t vnc_per_device() const;
    NrtStatus claim(const std::vector<uint32_t>& wanted, uint32_t count);
    void release_claim();
    void free_model_memory(Model& model);
    // The first core's sequencer runs the model when its doorbell rings (or nothing, when unloaded).
    void install_on_sequencer(Model& model);
    void remove_from_sequencer(const Model& model);
    // Copies between a tensor and the model's region (DMA for device memory, CPU for host).
    NrtStatus move_tensor(Model& model, const isa::TensorInfo& info, Tensor& tensor, bool into_model);
    // A call's inputs into the model (or its outputs out of it), traced: each copy of a data-parallel
    // program moves its own part on its own core's queue, the copies at once (runtime_copies.cpp).
    // Of a program of several graphs, only the tensors of the graph being executed (Model::tensors_of_graph).
    NrtStatus move_tensors(Model& model, const TensorSet& set, bool into_model, const HostTrace& trace);
    driver::ActivityPublisher& activity();
    void record_activity(const Model& model, const ExecutionResult& result, double total_latency_s);
    // A failed execution, counted by outcome, then the status to return.
    NrtStatus execution_failed(NrtStatus status, const std::string& message);

    config::HostSpec spec_;
    RuntimeOptions options_;
    std::unique_ptr<driver::HostState> state_;
    std::unique_ptr<driver::SimulatedHost> host_;
    std::unique_ptr<driver::NeuronDriver> driver_;
    std::unique_ptr<ModelExecutor> executor_;
    bool initialized_ = false;
    bool closed_ = false;
    std::vector<uint32_t> claimed_;             // logical cores, ascending
    std::vector<unsigned> open_devices_;
    std::vector<std::unique_ptr<Model>> models_;
    std::vector<std::unique_ptr<Tensor>> tensors_;
    uint32_t next_model_id_ = 1;
    std::string last_error_;
    std::unique_ptr<driver::ActivityPublisher> activity_;
    ApplicationTime application_time_;
    sim::core::TraceWriter* trace_next_ = nullptr;
};

}  // namespace nsim::runtime
