// Training a neuron-build bert-train program (kernels/train/training_program.h) on a session, as the
// BERT fine-tuning script drives the device (training.md A2.2, A4): per optimizer step, each
// micro-step's batch of sentence pairs and the step's AdamW scalars written to the program's inputs,
// one execution through the runtime, the loss read back. The learning rate follows Hugging Face's
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
    bool pretraining = false;      // task pretrain: masked-LM and next-sentence inputs
    uint32_t max_predictions = 0;  // masked-LM slots per sequence
    bool clips = false;
    std::string dtype;
    double beta1 = 0.9, beta2 = 0.999;
    uint32_t sequences_per_step() const { return micro_batch * grad_accum; }
};
TrainingShape training_shape(const isa::Container& program, const std::string& file);

struct TrainingStepResult {
    uint32_t step = 0;           // 1-based
    double loss = 0;             // mean over the step's micro-batches (functional runs)
    double learning_rate = 0;
    std::optional<double> grad_norm;   // before clipping (programs that clip, functional runs)
    double device_s = 0;         // the engines, one execution
    double step_s = 0;           // the runtime call: inputs over PCIe, engines, outputs
    double throughput = 0;       // sequences per second over the last (up to) 10 steps
    ExecutionTiming timing;      // the execution, engines included
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

class TrainingRun {
public:
    // `data`: micro-batches to cycle through (none: zero inputs, for timing runs).
    TrainingRun(Session& session, const TrainingShape& shape, const TrainingSchedule& schedule, TrainingData data);
    TrainingStepResult step();

private:
    void write_micro_batch(uint32_t micro_step, size_t batch);

    Session& session_;
    TrainingShape shape_;
    TrainingSchedule schedule_;
    TrainingData data_;
    size_t next_batch_ = 0;
    uint32_t step_ = 0;
    std::deque<double> recent_step_s_;
};


// The default --data: the MRPC pairs of shared/data.
std::string default_training_data_path();

}  // namespace nsim::library
