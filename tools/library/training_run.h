// Training a neuron-build bert-train program (kernels/train/training_program.h) on a session, as the
// BERT fine-tuning script drives the device (training.md A2.2, A4): per optimizer step, each
// micro-step's batch of sentence pairs written to the program's inputs before an execution of its
// micro-step graph (the first micro-step's, then the accumulating one's), its loss read back; then
// the step's AdamW scalars and one execution of the optimizer graph, all through the runtime. On C
// data-parallel cores each execution runs on every core, core i on the i-th of C consecutive
// micro-batches (the i-th slice of the global batch), the loss is the cores' mean (the script's
// all_reduce(running_loss / world_size), done on the host here), and the "all-reduce" graph runs
// between the last micro-step and the optimizer. (A timing-only execution of a graph without
// collectives simulates the first device's cores and the runtime counts the other devices at their
// time, driver/runtime/replicated_devices.h; GraphExecutions::simulated_cores says which.)
// A functional run executes every micro-step. A timing-only run simulates the first micro-step and
// the second (the accumulating graph) and counts the step's other micro-steps as the second's
// repetitions: they run the same instructions on inputs timing does not read, each execution from
// zero semaphores, so each takes the time the second took; the step's time is the first's + (grad_accum
// - 1) x the second's + the optimizer's, and its result says so (GraphExecutions). The learning rate follows Hugging Face's
// linear schedule (warmup from 0, then linear decay to 0 at the last step); throughput is the
// script's: sequences of the last (up to) 10 steps over their time.
// Without data (timing-only runs) every input stays zero: the program runs the same instructions.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "eval/pair_batches.h"
#include "eval/pretraining_batches.h"
#include "library/program_session.h"
#include "library/step_breakdown.h"

namespace nsim::library {

struct TrainingSchedule {
    double lr = 5e-5;             // peak learning rate
    uint32_t warmup_steps = 0;
    uint32_t total_steps = 1;
    double weight_decay = 0.01;
};

// Learning rate of optimizer step `step` (1-based), transformers.get_linear_schedule_with_warmup.
double scheduled_learning_rate(const TrainingSchedule& schedule, uint32_t step);

// The program's shape as neuron-build recorded it. Error (one line) naming what is wrong when
// `program` is not a training program (an inference model, a kernel).
struct TrainingShape {
    uint32_t micro_batch = 1, seq = 0, grad_accum = 1, layers = 0, hidden = 0, num_labels = 2;
    uint32_t cores = 1;            // data parallel: each its own micro-batches, an all-reduce before the optimizer
    uint32_t nodes = 1;            // instances, each with `cores` cores and grad_accum micro-steps (neuron-build --nodes)
    bool pretraining = false;      // task pretrain: masked-LM and next-sentence inputs
    uint32_t max_predictions = 0;  // masked-LM slots per sequence
    bool clips = false;
    std::string dtype;
    double beta1 = 0.9, beta2 = 0.999;
    uint32_t sequences_per_step() const { return micro_batch * grad_accum * cores * nodes; }   // every node's
};
TrainingShape training_shape(const isa::Container& program, const std::string& file);
// For commands that take an inference model (serve, run --pairs): Error when `program` is a training
// program, saying so and naming the command that runs it, rather than the caller's "not a model".
// `needs`: who needs the inference model ("serve", "--pairs").
void refuse_training_program(const isa::Container& program, const std::string& file, const std::string& needs);

// The executions of one graph in one optimizer step: how many the step has, how many were simulated,
// and one execution's time (the mean of the simulated ones), in full and in phases.
struct GraphExecutions {
    std::string graph;
    uint32_t count = 0, simulated = 0;
    uint32_t simulated_cores = 0;    // program cores its simulated executions ran on (ExecutionTiming)
    double device_s = 0;             // the engines, one execution
    double runtime_call_s = 0;       // nrt_execute: inputs over PCIe, engines, outputs
    std::vector<StepPhaseTime> phases;  // device_s in phases (step_breakdown)
    ExecutionTiming last;            // the last simulated execution
};

struct TrainingStepResult {
    uint32_t step = 0;           // 1-based
    double loss = 0;             // mean over the step's micro-batches (functional runs)
    double learning_rate = 0;
    std::optional<double> grad_norm;   // before clipping (programs that clip, functional runs)
    double device_s = 0;         // the engines, every execution of the step: sum of count x device_s
    double step_s = 0;           // the runtime calls (inputs over PCIe, engines, outputs), likewise
    double throughput = 0;       // sequences per second over the last (up to) 10 steps
    std::vector<GraphExecutions> executions;  // by graph, in execution order
    std::vector<StepPhaseTime> breakdown;     // device_s in phases: the executions' phases, count times each
};

// The labelled sentence pairs of `file` as full micro-batches of the program's shape (a last partial
// one is dropped, as a DataLoader with drop_last does), with their labels; for a pretraining program,
// the pairs masked and paired with random next sentences (pretraining_batches, seeded). Error (one
// line) for a file that does not parse, has no labels (fine-tuning), or has fewer pairs than one
// micro-batch.
struct TrainingData {
    std::vector<kernels::PairBatch> batches;
    std::vector<std::vector<int32_t>> labels;
    std::vector<kernels::PretrainingBatch> pretraining;
    size_t pairs = 0, truncated = 0;
    size_t micro_batches() const { return pretraining.empty() ? batches.size() : pretraining.size(); }
};
TrainingData training_data(const std::string& file, const kernels::BertTokenizer& tokenizer, const TrainingShape& shape);

// The graph of the inter-node phase in a step's executions (computed by the cluster model, not executed).
inline constexpr const char* kInterNodeAllReduce = "inter-node all-reduce";

class TrainingRun {
public:
    // `data`: micro-batches to cycle through (none: zero inputs, for timing runs). `node`: which of
    // the shape's nodes this run is: its core c takes the (node x cores + c)-th of each step's
    // consecutive micro-batches.
    TrainingRun(Session& session, const TrainingShape& shape, const TrainingSchedule& schedule, TrainingData data,
                uint32_t node = 0);
    // One optimizer step: begin_step(), end_step().
    TrainingStepResult step();
    // A step in two halves around the inter-node phase of several nodes (library/cluster_training.h):
    // begin_step() runs the micro-steps and the gradients' intra-node reduce-scatter (one node: the
    // whole all-reduce); end_step() counts `inter_node_s` (simulated) as the kInterNodeAllReduce
    // phase, then runs the all-gather and the optimizer, and composes the step.
    void begin_step();
    TrainingStepResult end_step(double inter_node_s = 0);
    // Since begin_step(): the runtime calls' time so far (when this node arrives at the inter-node phase).
    double begun_step_s() const;

private:
    void write_micro_batch(size_t batch);
    // Executes `graph` (or, when `simulate` is false, counts one more execution of it as its last
    // simulated one took) into `into`.
    void execute(const std::string& graph, bool simulate, GraphExecutions& into);

    Session& session_;
    TrainingShape shape_;
    TrainingSchedule schedule_;
    TrainingData data_;
    size_t next_batch_ = 0;
    uint32_t step_ = 0;
    TrainingStepResult begun_;                  // the step begin_step() began
    std::vector<GraphExecutions> begun_graphs_; // its executions so far, in execution order
    std::deque<double> recent_step_s_;
    std::vector<std::string> phase_marks_;
    uint32_t node_ = 0;
};


// The default --data: the MRPC pairs of shared/data.
std::string default_training_data_path();

}  // namespace nsim::library
