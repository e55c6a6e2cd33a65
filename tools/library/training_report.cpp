#include "library/training_report.h"

#include <fmt/format.h>

#include <set>

#include "core/run_report.h"
#include "train/activation_spill.h"
#include "train/training_program.h"
#include "train/training_step.h"

namespace nsim::library {
namespace {

TrainingMemory memory_of(const isa::Container& program, const config::HostSpec& spec) {
    TrainingMemory m;
    const kernels::train::TrainingStateBytes state = kernels::train::training_state_bytes(program);
    m.weights = state.weights;
    m.gradients = state.gradients;
    m.optimizer_states = state.optimizer_states;
    for (const isa::TensorInfo& t : program.tensors) {
        if (t.location != isa::TensorLocation::Device) continue;
        if (kernels::train::is_spilled_activation(t.name)) m.activations += t.size_bytes();
        else if (t.role != isa::TensorRole::Scratch && t.role != isa::TensorRole::State) m.other += t.size_bytes();
    }
    const std::string pass = program.metadata_value("sequences_per_pass");
    m.sequences_per_pass = pass.empty() ? 0 : uint32_t(std::stoul(pass));
    m.core_share = spec.chip.memory.total_bytes() / std::max(1u, spec.chip.cores_per_device);
    return m;
}

double mib(uint64_t bytes) { return double(bytes) / (1 << 20); }

// "first micro-step + 31 x micro-step + optimizer"
std::string composition_formula(const std::vector<GraphExecutions>& graphs) {
    std::string formula;
    for (const GraphExecutions& g : graphs)
        formula += (formula.empty() ? "" : " + ") + (g.count == 1 ? g.graph : fmt::format("{} x {}", g.count, g.graph));
    return formula;
}

// Where a graph's executions were simulated: "on all 32 cores (nd0-nd15)", "on nd0 cores 0-1, 15 more
// devices take its time" (driver/runtime/replicated_devices.h). None for the inter-node all-reduce of
// train --nodes, whose time the cluster model gives.
std::string simulated_where(const std::vector<sim::core::PhysicalCore>& cores, uint32_t simulated) {
    if (cores.empty()) return "";
    if (simulated == 0) return "by the cluster model over EFA, not on the cores";
    auto devices_of = [&](size_t first, size_t end) {
        std::set<unsigned> devices;
        for (size_t i = first; i < end && i < cores.size(); ++i) devices.insert(cores[i].device);
        return devices;
    };
    const std::set<unsigned> all = devices_of(0, cores.size());
    auto devices_text = [](const std::set<unsigned>& d) {
        return d.size() == 1 ? fmt::format("nd{}", *d.begin()) : fmt::format("nd{}-nd{}", *d.begin(), *d.rbegin());
    };
    if (simulated >= cores.size())
        return cores.size() == 1 ? fmt::format("on nd{} core {}", cores[0].device, cores[0].core)
                                 : fmt::format("on all {} cores ({})", cores.size(), devices_text(all));
    const std::set<unsigned> run = devices_of(0, simulated);
    const size_t counted = all.size() - run.size();
    const std::string which = simulated == 1 ? fmt::format("core {}", cores[0].core)
                                             : fmt::format("cores {}-{}", cores[0].core, cores[simulated - 1].core);
    return fmt::format("on {} {}, {} more device{} take{} its time", devices_text(run), which, counted,
                       counted == 1 ? "" : "s", counted == 1 ? "s" : "");
}

nlohmann::json composition_json(const TrainingReport& r) {
    nlohmann::json graphs = nlohmann::json::array();
    for (const GraphExecutions& g : r.last_step) {
        nlohmann::json phases = nlohmann::json::object();
        for (const StepPhaseTime& p : g.phases) phases[p.phase] = p.seconds;
        graphs.push_back({{"graph", g.graph}, {"executions", g.count}, {"simulated", g.simulated},
                          {"simulated_cores", g.simulated_cores}, {"simulated_on", simulated_where(r.cores, g.simulated_cores)},
                          {"device_s", g.device_s}, {"runtime_call_s", g.runtime_call_s}, {"breakdown_s", phases}});
    }
    return {{"formula", composition_formula(r.last_step)}, {"cores", r.shape.cores}, {"graphs", graphs}};
}

}  // namespace

TrainingReport training_report(const Session& session, const TrainingShape& shape,
                               const std::vector<TrainingStepResult>& steps, bool functional) {
    TrainingReport r;
    const isa::Container& program = session.program();
    r.program = program.metadata_value("model");
    r.instance = session.spec().instance.name;
    r.dtype = shape.dtype;
    r.shape = shape;
    r.functional = functional;
    r.steps = steps;
    for (const TrainingStepResult& s : steps) {
        r.step_device_s += s.device_s / steps.size();
        r.step_s += s.step_s / steps.size();
        const std::vector<StepPhaseTime>& parts = s.breakdown;
        if (r.breakdown.empty()) r.breakdown.assign(parts.size(), {});
        for (size_t i = 0; i < parts.size() && i < r.breakdown.size(); ++i) {
            r.breakdown[i].phase = parts[i].phase;
            r.breakdown[i].seconds += parts[i].seconds / steps.size();
        }
    }
    r.throughput_per_s = r.step_s > 0 ? shape.sequences_per_step() / r.step_s : 0;
    const double L = shape.layers, H = shape.hidden, S = shape.seq;
    r.flops_per_sequence = 12 * L * H * S * (6 * H + S);
    const auto& peaks = session.spec().chip.core.tensor.peak_flops;
    const auto peak = peaks.find(shape.dtype);
    r.peak_flops = peak == peaks.end() ? 0 : peak->second;
    // The script's extract_mfu: a per-worker peak, the throughput of every worker.
    r.mfu = r.peak_flops > 0 ? r.throughput_per_s * r.flops_per_sequence / (r.peak_flops * shape.cores * shape.nodes) : 0;
    r.memory = memory_of(program, session.spec());
    r.cores = session.model().loaded.placement.cores;
    if (!steps.empty()) {
        r.last_step = steps.back().executions;
        for (const GraphExecutions& g : r.last_step)
            if (g.graph == kernels::train::kFirstMicroStepGraph || g.graph == kernels::train::kMicroStepGraph) r.last = g.last;
    }
    return r;
}

nlohmann::json training_report_json(const TrainingReport& r) {
    nlohmann::json steps = nlohmann::json::array();
    for (const TrainingStepResult& s : r.steps) {
        nlohmann::json step = {{"step", s.step}, {"learning_rate", s.learning_rate}, {"device_s", s.device_s},
                               {"step_s", s.step_s}, {"throughput", s.throughput}};
        if (r.functional) step["loss"] = s.loss;
        if (s.grad_norm) step["grad_norm"] = *s.grad_norm;
        steps.push_back(step);
    }
    nlohmann::json breakdown = nlohmann::json::object();
    for (const StepPhaseTime& p : r.breakdown) breakdown[p.phase] = p.seconds;
    return {{"program", r.program},
            {"instance", r.instance},
            {"dtype", r.dtype},
            {"micro_batch", r.shape.micro_batch},
            {"grad_accum", r.shape.grad_accum},
            {"seq_len", r.shape.seq},
            {"cores", r.shape.cores},
            {"functional", r.functional},
            {"steps", steps},
            {"step_device_s", r.step_device_s},
            {"step_s", r.step_s},
            {"step_breakdown_s", breakdown},
            {"throughput_per_s", r.throughput_per_s},
            {"flops_per_sequence", r.flops_per_sequence},
            {"peak_flops", r.peak_flops},
            {"mfu", r.mfu},
            {"memory_bytes",
             {{"weights", r.memory.weights},
              {"gradients", r.memory.gradients},
              {"optimizer_states", r.memory.optimizer_states},
              {"activations", r.memory.activations},
              {"other", r.memory.other},
              {"core_share", r.memory.core_share}}},
            {"step_composition", composition_json(r)},
            {"last_step_engines", sim::core::report_json(r.last.engines)}};
}

std::string training_report_text(const TrainingReport& r) {
    std::string out;
    out += fmt::format("{} {} on {} ({}, micro-batch {} x seq {}{}, {} micro-step(s) per step{}){}\n",
                       r.shape.pretraining ? "pretraining" : "training", r.program, r.instance, r.dtype,
                       r.shape.micro_batch, r.shape.seq,
                       r.shape.pretraining ? fmt::format(", {} masked-LM predictions per sequence", r.shape.max_predictions) : "",
                       r.shape.grad_accum,
                       r.shape.cores > 1 ? fmt::format(", data parallel on {} cores, each its own micro-batches", r.shape.cores) : "",
                       r.functional ? "" : ", timing only");
    out += fmt::format("steps              {:10}\n", r.steps.size());
    out += fmt::format("step time          {:10.3f} ms  engines; {:.3f} ms with the runtime call (PCIe in/out)\n",
                       r.step_device_s * 1e3, r.step_s * 1e3);
    for (const StepPhaseTime& p : r.breakdown)
        out += fmt::format("  {:<16} {:10.3f} ms  {:5.1f} %{}\n", p.phase, p.seconds * 1e3,
                           r.step_device_s > 0 ? 100 * p.seconds / r.step_device_s : 0.0,
                           p.phase == kernels::train::kAllReducePhase && p.seconds == 0 ? "  (one core: none)" : "");
    if (!r.last_step.empty()) {
        out += fmt::format("step composition   {} (engines, per execution; the last step)\n", composition_formula(r.last_step));
        for (const GraphExecutions& g : r.last_step) {
            const std::string where = r.cores.size() > 1 ? " " + simulated_where(r.cores, g.simulated_cores) : "";
            out += fmt::format("  {:<16} {:10.3f} ms  x {} = {:.3f} ms; {} simulated{}{}\n", g.graph, g.device_s * 1e3, g.count,
                               g.count * g.device_s * 1e3, g.simulated, where,
                               g.simulated < g.count ? fmt::format("{} the other {} counted at its time", where.empty() ? "," : ";",
                                                                   g.count - g.simulated)
                                                     : "");
        }
    }
    out += fmt::format("throughput         {:10.2f} sequences/s\n", r.throughput_per_s);
    out += fmt::format("MFU                {:10.2f} %  ({:.3g} FLOP per sequence, peak {:.3g} FLOP/s per core in {}{})\n",
                       r.mfu * 100, r.flops_per_sequence, r.peak_flops, r.dtype,
                       r.shape.cores > 1 ? fmt::format(", {} cores", r.shape.cores) : "");
    if (r.functional && !r.steps.empty())
        out += fmt::format("loss               {:10.4f} -> {:.4f} (first step -> last)\n", r.steps.front().loss,
                           r.steps.back().loss);
    const TrainingMemory& m = r.memory;
    out += fmt::format("device memory      {:10.2f} MiB of the core's {:.0f} MiB: weights {:.2f}, gradients {:.2f}, "
                       "optimizer states {:.2f}, activations {:.2f}, other {:.2f}\n",
                       mib(m.weights + m.gradients + m.optimizer_states + m.activations + m.other), mib(m.core_share),
                       mib(m.weights), mib(m.gradients), mib(m.optimizer_states), mib(m.activations), mib(m.other));
    out += m.activations > 0
               ? fmt::format("activations        spilled to device memory layer by layer; the micro-batch in passes of {} "
                             "sequence(s)\n", m.sequences_per_pass)
               : std::string("activations        kept on chip\n");
    out += fmt::format("\nthe last step's last simulated micro-step on the engines{}:\n",
                       r.cores.size() > 1 ? " (" + simulated_where(r.cores, r.last.simulated_cores) + ")" : "");
    out += sim::core::report_text(r.last.engines);
    return out;
}

}  // namespace nsim::library
