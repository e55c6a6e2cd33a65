#include "library/training_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "builder/program_builder.h"
#include "common/input_error.h"
#include "library/library_error.h"
#include "train/training_program.h"

namespace nsim::library {
namespace {

constexpr size_t kThroughputWindow = 10;  // the script's Throughput class

// `values`: every core's copy, one after another.
void write_values(Session& session, const std::string& name, const std::vector<float>& values, isa::DType dtype) {
    std::vector<uint8_t>& bytes = session.input(name);
    const std::vector<uint8_t> encoded = kernels::builder::encode_values(values, dtype);
    if (encoded.size() != bytes.size()) throw Error(fmt::format("input '{}' takes {} bytes, not {}", name, bytes.size(), encoded.size()));
    bytes = encoded;
}

std::vector<float> floats(const std::vector<int32_t>& v) { return std::vector<float>(v.begin(), v.end()); }

// An fp32 output's values (every core's copy, one after another).
std::vector<float> read_floats(const Session& session, const std::string& name) {
    const std::vector<uint8_t>& out = session.output(name);
    return kernels::builder::decode_values(out.data(), out.size() / 4, isa::DType::Fp32);
}

// `values` once per core.
std::vector<float> for_every_core(const std::vector<float>& values, uint32_t cores) {
    std::vector<float> all;
    for (uint32_t c = 0; c < cores; ++c) all.insert(all.end(), values.begin(), values.end());
    return all;
}

}  // namespace

double scheduled_learning_rate(const TrainingSchedule& s, uint32_t step) {
    const double current = double(step - 1);  // the scheduler's step count when this step runs
    if (current < s.warmup_steps) return s.lr * current / std::max(1u, s.warmup_steps);
    return s.lr * std::max(0.0, double(s.total_steps - current) / std::max(1.0, double(s.total_steps) - s.warmup_steps));
}

void refuse_training_program(const isa::Container& program, const std::string& file, const std::string& needs) {
    if (kernels::train::is_training_program(program))
        throw Error(file + " is a training program (neuron-build bert-train): run it with neuron-sim train; " + needs +
                    " needs an inference model (neuron-build bert)");
}

TrainingShape training_shape(const isa::Container& program, const std::string& file) {
    if (!kernels::train::is_training_program(program)) {
        if (is_built_model(program))
            throw Error(file + " is an inference model (neuron-build bert); train needs a training program (neuron-build bert-train)");
        throw Error(file + " is not a training program (build one with neuron-build bert-train)");
    }
    TrainingShape s;
    s.micro_batch = metadata_u32(program, "micro_batch", 1);
    s.seq = metadata_u32(program, "seq_len", 0);
    s.grad_accum = metadata_u32(program, "grad_accum", 1);
    s.layers = metadata_u32(program, "layers", 0);
    s.hidden = metadata_u32(program, "hidden_size", 0);
    s.num_labels = metadata_u32(program, "num_labels", 2);
    s.cores = metadata_u32(program, "cores", 1);
    s.nodes = metadata_u32(program, "nodes", 1);
    s.pretraining = program.metadata_value("task") == kernels::train::kPretrainTask;
    s.max_predictions = metadata_u32(program, "max_predictions", 0);
    s.dtype = program.metadata_value("dtype");
    s.clips = std::any_of(program.tensors.begin(), program.tensors.end(),
                          [](const isa::TensorInfo& t) { return t.name == kernels::train::kGradNormOutput; });
    try {
        s.beta1 = std::stod(program.metadata_value("adam_beta1"));
        s.beta2 = std::stod(program.metadata_value("adam_beta2"));
    } catch (const std::exception&) {
        throw Error(file + ": the training program's adam_beta1/adam_beta2 metadata is not a number");
    }
    return s;
}

TrainingRun::TrainingRun(Session& session, const TrainingShape& shape, const TrainingSchedule& schedule, TrainingData data,
                         uint32_t node)
    : session_(session), shape_(shape), schedule_(schedule), data_(std::move(data)),
      phase_marks_(kernels::train::step_phase_marks(session.program())), node_(node) {}

void TrainingRun::write_micro_batch(size_t batch) {
    namespace train = kernels::train;
    // Core c's micro-batch is the c-th after `batch` (cycling through the data).
    std::map<std::string, std::vector<float>> inputs;
    for (uint32_t c = 0; c < shape_.cores; ++c) {
        const size_t b = (batch + size_t(node_) * shape_.cores + c) % data_.micro_batches();
        const kernels::PretrainingBatch* p = data_.pretraining.empty() ? nullptr : &data_.pretraining[b];
        const kernels::TokenBatch& t = p ? p->tokens : data_.batches[b].tokens;
        auto append = [&](const char* name, const std::vector<float>& values) {
            inputs[name].insert(inputs[name].end(), values.begin(), values.end());
        };
        append(train::kInputIdsInput, floats(t.input_ids));
        append(train::kTokenTypeIdsInput, floats(t.token_type_ids));
        append(train::kAttentionMaskInput, floats(t.attention_mask));
        append(train::kLabelsInput, floats(p ? p->next_sentence : data_.labels[b]));
        if (!p) continue;
        append(train::kMaskedLmPositionsInput, floats(p->positions));
        append(train::kMaskedLmLabelsInput, floats(p->labels));
        append(train::kMaskedLmWeightsInput, p->weights);
    }
    for (const auto& [name, values] : inputs) {
        const bool fp32 = name == train::kLabelsInput || name == train::kMaskedLmWeightsInput;
        write_values(session_, name, values, fp32 ? isa::DType::Fp32 : isa::DType::Int32);
    }
}

void TrainingRun::execute(const std::string& graph, bool simulate, GraphExecutions& into) {
    into.graph = graph;
    ++into.count;
    if (!simulate) return;
    const ExecutionTiming timing = session_.execute_graph(graph);
    const double n = ++into.simulated;
    into.device_s += (timing.device_s - into.device_s) / n;
    into.runtime_call_s += (timing.runtime_call_s - into.runtime_call_s) / n;
    const std::vector<StepPhaseTime> phases = step_breakdown(phase_marks_, timing.engines);
    if (into.phases.empty()) into.phases.assign(phases.size(), {});
    for (size_t i = 0; i < phases.size() && i < into.phases.size(); ++i) {
        into.phases[i].phase = phases[i].phase;
        into.phases[i].seconds += (phases[i].seconds - into.phases[i].seconds) / n;
    }
    into.simulated_cores = timing.simulated_cores;
    into.last = timing;
}

TrainingStepResult TrainingRun::step() {
    begin_step();
    return end_step();
}

void TrainingRun::begin_step() {
    namespace train = kernels::train;
    TrainingStepResult& r = begun_ = TrainingStepResult{};
    r.step = ++step_;
    r.learning_rate = scheduled_learning_rate(schedule_, r.step);
    GraphExecutions first, later, all_reduce;
    for (uint32_t k = 0; k < shape_.grad_accum; ++k) {
        // Timing only: the first and the second micro-step are simulated, the rest take the second's time.
        const bool simulate = session_.functional() || k < 2;
        if (simulate && data_.micro_batches() > 0) {
            write_micro_batch(next_batch_);
            next_batch_ = (next_batch_ + size_t(shape_.cores) * shape_.nodes) % data_.micro_batches();
        }
        execute(k == 0 ? train::kFirstMicroStepGraph : train::kMicroStepGraph, simulate, k == 0 ? first : later);
        if (simulate)
            for (float loss : read_floats(session_, train::kLossOutput)) r.loss += loss / shape_.cores;
    }
    r.loss /= shape_.grad_accum;
    // Several nodes: the all-reduce's intra-node reduce-scatter (none on one core); one node: all of it.
    if (shape_.nodes > 1 && shape_.cores > 1) execute(train::kReduceScatterGraph, true, all_reduce);
    else if (shape_.cores > 1) execute(train::kAllReduceGraph, true, all_reduce);
    begun_graphs_.clear();
    for (GraphExecutions* g : {&first, &later, &all_reduce})
        if (g->count > 0) begun_graphs_.push_back(std::move(*g));
}

double TrainingRun::begun_step_s() const {
    double seconds = 0;
    for (const GraphExecutions& g : begun_graphs_) seconds += g.count * g.runtime_call_s;
    return seconds;
}

TrainingStepResult TrainingRun::end_step(double inter_node_s) {
    namespace train = kernels::train;
    TrainingStepResult r = std::move(begun_);
    std::vector<GraphExecutions> graphs = std::move(begun_graphs_);
    if (shape_.nodes > 1) {
        // Computed by the cluster model: one "execution" that is all the all-reduce phase.
        GraphExecutions inter_node;
        inter_node.graph = kInterNodeAllReduce;
        inter_node.count = inter_node.simulated = 1;
        inter_node.device_s = inter_node.runtime_call_s = inter_node_s;
        for (const StepPhaseTime& p : graphs.front().phases)
            inter_node.phases.push_back({p.phase, p.phase == train::kAllReducePhase ? inter_node_s : 0.0});
        graphs.push_back(std::move(inter_node));
        if (shape_.cores > 1) execute(train::kAllGatherGraph, true, graphs.emplace_back());
    }
    write_values(session_, train::kAdamWScalarsInput,
                 for_every_core(train::adamw_step_scalars(r.learning_rate, schedule_.weight_decay, shape_.beta1,
                                                          shape_.beta2, r.step),
                                shape_.cores),
                 isa::DType::Fp32);
    execute(train::kOptimizerGraph, true, graphs.emplace_back());
    if (shape_.clips) r.grad_norm = read_floats(session_, train::kGradNormOutput).at(0);
    for (GraphExecutions& g : graphs) {
        r.device_s += g.count * g.device_s;
        r.step_s += g.count * g.runtime_call_s;
        if (r.breakdown.empty()) r.breakdown.assign(g.phases.size(), {});
        for (size_t i = 0; i < g.phases.size() && i < r.breakdown.size(); ++i) {
            r.breakdown[i].phase = g.phases[i].phase;
            r.breakdown[i].seconds += g.count * g.phases[i].seconds;
        }
        r.executions.push_back(std::move(g));
    }
    recent_step_s_.push_back(r.step_s);
    if (recent_step_s_.size() > kThroughputWindow) recent_step_s_.pop_front();
    const double seconds = std::accumulate(recent_step_s_.begin(), recent_step_s_.end(), 0.0);
    r.throughput = seconds > 0 ? double(shape_.sequences_per_step()) * recent_step_s_.size() / seconds : 0;
    return r;
}

TrainingData training_data(const std::string& file, const kernels::BertTokenizer& tokenizer, const TrainingShape& shape) {
    kernels::SentencePairFile pairs;
    try {
        pairs = kernels::read_sentence_pairs(file);
    } catch (const kernels::InputError& e) {
        throw Error(e.what());
    }
    if (pairs.pairs.size() < shape.micro_batch)
        throw Error(fmt::format("{}: {} pairs, fewer than one micro-batch of {}", file, pairs.pairs.size(), shape.micro_batch));
    TrainingData data;
    if (shape.pretraining) {
        kernels::PretrainingBatchOptions o;
        o.seq = shape.seq;
        o.rows = shape.micro_batch;
        o.max_predictions = shape.max_predictions;
        try {
            data.pretraining = kernels::pretraining_batches(tokenizer, pairs.pairs, o);
        } catch (const kernels::InputError& e) {
            throw Error(e.what());
        }
        data.pairs = data.pretraining.size() * shape.micro_batch;
        return data;
    }
    if (!pairs.has_labels) throw Error(file + ": training needs labelled pairs (the first column)");
    for (const kernels::SentencePair& p : pairs.pairs)
        if (*p.label < 0 || uint32_t(*p.label) >= shape.num_labels)
            throw Error(fmt::format("{}:{}: label {} is outside the model's {} classes", file, p.line, *p.label, shape.num_labels));
    kernels::PairBatches batches;
    try {
        batches = kernels::batch_sentence_pairs(tokenizer, pairs.pairs, shape.seq, shape.micro_batch);
    } catch (const kernels::InputError& e) {
        throw Error(e.what());
    }
    for (kernels::PairBatch& b : batches.batches) {
        if (b.pairs < shape.micro_batch) continue;  // drop_last
        std::vector<int32_t> labels;
        for (size_t i = 0; i < b.pairs; ++i) labels.push_back(*pairs.pairs[b.first_pair + i].label);
        data.labels.push_back(std::move(labels));
        data.batches.push_back(std::move(b));
    }
    data.pairs = data.batches.size() * shape.micro_batch;
    data.truncated = batches.truncated;
    return data;
}

std::string default_training_data_path() { return std::string(NSIM_SHARED_DATA_DIR) + "/mrpc/glue_mrpc_dev.tsv"; }

}  // namespace nsim::library
