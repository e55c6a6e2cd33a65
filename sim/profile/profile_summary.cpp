#include "profile/profile_summary.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "profile/instruction_flops.h"

namespace nsim::sim::profile {
namespace {

// neuron-profile's engine names and the queues they stand for.
struct EngineName {
    const char* prefix;
    isa::Engine engine;
};
constexpr EngineName kEngines[] = {{"tensor_engine", isa::Engine::Pe},
                                   {"vector_engine", isa::Engine::Dve},
                                   {"scalar_engine", isa::Engine::Act},
                                   {"gpsimd_engine", isa::Engine::Pool},
                                   {"sync_engine", isa::Engine::Sp}};

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

// What the metrics are made of, for one core or the sum of them.
struct Totals {
    double cores = 0;  // core-seconds available = time x cores
    double time_s = 0;
    FlopCount model, transpose;
    struct Engine {
        double active_s = 0, wait_s = 0;
        uint64_t instructions = 0;
    };
    Engine engines[std::size(kEngines)];
    Engine dma;
    uint64_t dma_queues = 0, dma_bytes = 0, hbm_read = 0, hbm_write = 0;

    void add(const Totals& o) {
        cores += o.cores;
        model += o.model;
        transpose += o.transpose;
        for (size_t e = 0; e < std::size(kEngines); ++e) {
            engines[e].active_s += o.engines[e].active_s;
            engines[e].wait_s += o.engines[e].wait_s;
            engines[e].instructions += o.engines[e].instructions;
        }
        dma.active_s += o.dma.active_s, dma.wait_s += o.dma.wait_s, dma.instructions += o.dma.instructions;
        dma_queues += o.dma_queues, dma_bytes += o.dma_bytes, hbm_read += o.hbm_read, hbm_write += o.hbm_write;
    }
};

FlopCount times(FlopCount f, double n) {
    f.flops *= n, f.peak_seconds *= n, f.instructions = uint64_t(double(f.instructions) * n);
    return f;
}

Totals core_totals(const core::RunStatistics& stats, uint32_t core, const CoreFlops& flops) {
    const double iterations = double(std::max<size_t>(1, stats.iteration_s.size()));
    Totals t;
    t.cores = 1;
    t.time_s = stats.time_s;
    t.model = times(flops.model, iterations);
    t.transpose = times(flops.transpose, iterations);
    for (const core::QueueStatistics& q : stats.queues) {
        if (q.core != core) continue;
        t.hbm_read += q.hbm_read_bytes;
        t.hbm_write += q.hbm_write_bytes;
        if (q.engine == isa::Engine::Dma) {
            ++t.dma_queues;
            t.dma.instructions += q.instructions;
            t.dma.wait_s += q.semaphore_wait_s;
            t.dma_bytes += q.bytes;
            continue;
        }
        for (size_t e = 0; e < std::size(kEngines); ++e)
            if (kEngines[e].engine == q.engine) {
                t.engines[e].active_s += q.busy_s;
                t.engines[e].wait_s += q.semaphore_wait_s;
                t.engines[e].instructions += q.instructions;
            }
    }
    t.dma.active_s = core < stats.dma_active_s.size() ? stats.dma_active_s[core] : 0;
    return t;
}

std::vector<Metric> metrics(const Totals& t, double memory_peak_bytes_per_s, double clock_hz) {
    std::vector<Metric> m;
    auto add = [&](const std::string& name, double value, bool integer = false) { m.push_back({name, value, integer}); };
    const double available = t.time_s * t.cores;
    const FlopCount hardware = [&] { FlopCount h = t.model; h += t.transpose; return h; }();
    const double hbm = double(t.hbm_read + t.hbm_write);
    add("total_time", t.time_s);
    add("neuroncore_cycle_count", double(uint64_t(t.time_s * clock_hz + 0.5)), true);
    add("model_flops", t.model.flops, true);
    add("hardware_flops", hardware.flops, true);
    add("transpose_flops", t.transpose.flops, true);
    add("mm_arithmetic_intensity", ratio(hardware.flops - t.transpose.flops, hbm));
    add("dma_active_time", t.dma.active_s);
    add("dma_active_time_percent", 100 * ratio(t.dma.active_s, available));
    add("dma_transfer_average_bytes", ratio(double(t.dma_bytes), double(t.dma.instructions)));
    add("dma_transfer_count", double(t.dma.instructions), true);
    add("dma_transfer_total_bytes", double(t.dma_bytes), true);
    add("dma_queue_count", double(t.dma_queues), true);
    if (memory_peak_bytes_per_s > 0) add("mbu_estimated_percent", 100 * ratio(ratio(hbm, t.time_s), memory_peak_bytes_per_s));
    add("hbm_write_bytes", double(t.hbm_write), true);
    add("hbm_read_bytes", double(t.hbm_read), true);
    for (size_t e = 0; e < std::size(kEngines); ++e) {
        const std::string p = kEngines[e].prefix;
        const Totals::Engine& engine = t.engines[e];
        if (e == 0) {
            add(p + "_active_time", engine.active_s);
            add(p + "_active_time_percent", 100 * ratio(engine.active_s, available));
            add(p + "_instruction_count", double(engine.instructions), true);
            add("matmul_instruction_count", double(t.model.instructions), true);
            add("mfu_estimated_percent", 100 * ratio(t.model.peak_seconds, available));
            add("hfu_estimated_percent", 100 * ratio(hardware.peak_seconds, available));
            continue;
        }
        add(p + "_active_time", engine.active_s);
        add(p + "_active_time_percent", 100 * ratio(engine.active_s, available));
        add(p + "_instruction_count", double(engine.instructions), true);
    }
    // The simulator's own.
    add("dma_bandwidth_bytes_per_s", ratio(double(t.dma_bytes), t.time_s));
    add("hbm_read_bandwidth_bytes_per_s", ratio(double(t.hbm_read), t.time_s));
    add("hbm_write_bandwidth_bytes_per_s", ratio(double(t.hbm_write), t.time_s));
    double wait = t.dma.wait_s;
    for (const Totals::Engine& engine : t.engines) wait += engine.wait_s;
    add("semaphore_wait_time", wait);
    for (size_t e = 0; e < std::size(kEngines); ++e)
        add(std::string(kEngines[e].prefix) + "_semaphore_wait_time", t.engines[e].wait_s);
    add("dma_semaphore_wait_time", t.dma.wait_s);
    return m;
}

std::string value_text(const Metric& m) {
    return m.integer ? fmt::format("{}", uint64_t(m.value)) : fmt::format("{:.6g}", m.value);
}

nlohmann::json metrics_json(const std::vector<Metric>& metrics) {
    nlohmann::json j = nlohmann::json::object();
    for (const Metric& m : metrics) {
        if (m.integer) j[m.name] = uint64_t(m.value);
        else j[m.name] = m.value;
    }
    return j;
}

}  // namespace

double ProfileSummary::value(const std::string& name) const {
    for (const Metric& m : summary)
        if (m.name == name) return m.value;
    throw std::out_of_range("no metric " + name);
}

ProfileSummary summarize(const core::RunStatistics& stats, const isa::Container& program, const config::ChipSpec& chip) {
    const std::vector<CoreFlops> flops = flops_per_core(program, &chip.core);
    ProfileSummary profile;
    Totals all;
    all.time_s = stats.time_s;
    // A run that simulated some of the cores (the others took their time) stands for all of them.
    const uint32_t cores = stats.cores ? std::min(stats.cores, program.cores_needed) : program.cores_needed;
    for (uint32_t c = 0; c < cores; ++c) {
        const Totals core = core_totals(stats, c, flops[c]);
        all.add(core);
        std::vector<Metric> m = metrics(core, 0, stats.cycle_clock_hz);
        m.insert(m.begin(), Metric{"nc_idx", double(c), true});
        profile.per_core.push_back(std::move(m));
    }
    profile.summary = metrics(all, stats.device_memory_peak_bytes_per_s, stats.cycle_clock_hz);
    return profile;
}

nlohmann::json profile_json(const ProfileSummary& profile) {
    nlohmann::json per_core = nlohmann::json::array();
    for (const auto& core : profile.per_core) per_core.push_back(metrics_json(core));
    return {{"summary", metrics_json(profile.summary)}, {"per_core", std::move(per_core)}};
}

std::string profile_text(const ProfileSummary& profile) {
    size_t width = 0;
    for (const Metric& m : profile.summary) width = std::max(width, m.name.size());
    std::string out;
    for (const Metric& m : profile.summary) out += fmt::format("{:<{}}  {}\n", m.name, width, value_text(m));
    for (const auto& core : profile.per_core) {
        out += "\n";
        for (const Metric& m : core) out += fmt::format("{:<{}}  {}\n", m.name, width, value_text(m));
    }
    return out;
}

}  // namespace nsim::sim::profile
