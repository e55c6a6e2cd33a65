#include "neuron-sim/sweep_point_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/tool_main.h"
#include "library/instance.h"
#include "library/program_preparation.h"
#include "library/program_run.h"
#include "library/training_report.h"
#include "library/training_run.h"
#include "neuron-build/bert_command.h"
#include "neuron-build/bert_train_command.h"
#include "profile/profile_summary.h"

namespace nsim::tools {
namespace {

namespace fs = std::filesystem;

// A grid value as the number the build takes, in the range neuron-build's option accepts.
uint32_t point_count(const std::string& value, const std::string& name, uint32_t min, uint32_t max) {
    size_t used = 0;
    unsigned long long n = 0;
    try {
        n = std::stoull(value, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != value.size() || value[0] == '-' || n < min || n > max)
        throw UserError(fmt::format("{} '{}' is not a whole number from {} to {}", name, value, min, max));
    return uint32_t(n);
}

// What an inference and a training build of a point share: model, dtype, cores, instance, timing-only.
template <class BuildOptions>
void set_shared_build_options(BuildOptions& o, const SweepPoint& p, const SweepSettings& s) {
    o.model = p.model;
    o.dtype = p.effective_dtype();
    o.cores = point_count(p.cores, "cores", 1, 1024);
    o.timing_only = true;
    o.instance = p.instance;
    o.config_files = s.config_files;
}

BertBuildOptions inference_build(const SweepPoint& p, const SweepSettings& s) {
    BertBuildOptions o;
    o.seq = point_count(p.seq, "seq", 1, 4096);
    o.batch = point_count(p.batch, "batch", 1, 65536);
    set_shared_build_options(o, p, s);
    return o;
}

BertTrainBuildOptions training_build(const SweepPoint& p, const SweepSettings& s) {
    BertTrainBuildOptions o;
    o.task = p.task;
    o.seq = point_count(p.seq, "seq", 3, 4096);
    o.micro_batch = point_count(p.batch, "batch (the micro-batch)", 1, 65536);
    o.grad_accum = point_count(p.grad_accum, "grad_accum", 1, 4096);
    set_shared_build_options(o, p, s);
    return o;
}

void add_engines(SweepMeasurement& m, const sim::core::RunStatistics& engines, const isa::Container& program,
                 const config::HostSpec& spec, bool with_mfu) {
    const sim::profile::ProfileSummary profile = sim::profile::summarize(engines, program, spec.chip);
    for (const SweepEngine& e : kSweepEngines) m.engine_busy_pct.push_back(profile.value(e.profile_metric));
    if (with_mfu) m.mfu_pct = profile.value("mfu_estimated_percent");
}

SweepMeasurement measure_inference(const SweepPoint& p, const SweepSettings& s) {
    BertBuild build = make_bert_build(inference_build(p, s));
    const config::HostSpec spec = library::host_spec(p.instance, s.config_files);
    library::check_runnable(build.program, spec);
    library::Instance instance(spec);
    library::Session session(instance, std::move(build.program), false);
    library::RunRequest request;
    request.iterations = s.iterations;
    const library::RunReport report = library::run(session, request);
    SweepMeasurement m;
    m.latency_ms = report.end_to_end.p50_ms;
    m.throughput_per_s = report.throughput_per_s;
    add_engines(m, report.last.engines, session.program(), spec, true);
    return m;
}

SweepMeasurement measure_training(const SweepPoint& p, const SweepSettings& s) {
    BertTrainBuild build = make_bert_train_build(training_build(p, s));
    const config::HostSpec spec = library::host_spec(p.instance, s.config_files);
    const library::TrainingShape shape = library::training_shape(build.program, p.model);
    library::check_runnable(build.program, spec);
    library::Instance instance(spec);
    library::Session session(instance, std::move(build.program), false);
    library::TrainingSchedule schedule;
    schedule.total_steps = s.steps;
    library::TrainingRun run(session, shape, schedule, {});
    std::vector<library::TrainingStepResult> steps;
    for (uint32_t i = 0; i < s.steps; ++i) steps.push_back(run.step());
    const library::TrainingReport report = library::training_report(session, shape, steps, false);
    SweepMeasurement m;
    m.step_ms = report.step_s * 1e3;
    m.throughput_per_s = report.throughput_per_s;
    m.mfu_pct = report.mfu * 100;
    add_engines(m, report.last.engines, session.program(), spec, false);
    return m;
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
std::optional<double> optional_value(const nlohmann::json& j) {
    return j.is_null() ? std::nullopt : std::optional<double>(j.get<double>());
}

nlohmann::json measurement_json(const SweepMeasurement& m) {
    return {{"error", m.error}, {"latency_ms", optional_json(m.latency_ms)}, {"step_ms", optional_json(m.step_ms)},
            {"throughput_per_s", optional_json(m.throughput_per_s)}, {"mfu_pct", optional_json(m.mfu_pct)},
            {"engine_busy_pct", m.engine_busy_pct}};
}

SweepMeasurement measurement_from_json(const nlohmann::json& j) {
    SweepMeasurement m;
    m.error = j.at("error").get<std::string>();
    m.latency_ms = optional_value(j.at("latency_ms"));
    m.step_ms = optional_value(j.at("step_ms"));
    m.throughput_per_s = optional_value(j.at("throughput_per_s"));
    m.mfu_pct = optional_value(j.at("mfu_pct"));
    m.engine_busy_pct = j.at("engine_busy_pct").get<std::vector<double>>();
    return m;
}

std::string one_line(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

SweepMeasurement failed(const std::string& error) {
    SweepMeasurement m;
    m.error = one_line(error);
    return m;
}

// Runs `measure` in a forked child with NEURON_SIM_HOME set to a private directory; its result
// comes back over a pipe as JSON.
SweepMeasurement measure_in_child(const std::function<SweepMeasurement()>& measure) {
    std::string home_pattern = (fs::temp_directory_path() / "nsim-sweep-home-XXXXXX").string();
    if (!mkdtemp(home_pattern.data())) return failed(std::string("cannot make a state directory: ") + std::strerror(errno));
    const fs::path home = home_pattern;
    int fds[2];
    if (pipe(fds) != 0) {
        const std::string reason = std::strerror(errno);
        std::error_code ignored;
        fs::remove_all(home, ignored);
        return failed("cannot make a pipe: " + reason);
    }
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        setenv("NEURON_SIM_HOME", home.c_str(), 1);
        SweepMeasurement m;
        try {
            m = measure();
        } catch (const std::exception& e) {
            m = failed(e.what());
        }
        const std::string text = measurement_json(m).dump();
        for (size_t done = 0; done < text.size();) {
            const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
            if (n <= 0) _exit(3);
            done += size_t(n);
        }
        _exit(0);   // no atexit handlers, static destructors or MPI finalisation: the parent owns those
    }
    close(fds[1]);
    std::string text;
    if (child > 0) {
        char buffer[4096];
        ssize_t n;
        while ((n = read(fds[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR))
            if (n > 0) text.append(buffer, size_t(n));
    }
    close(fds[0]);
    int status = 0;
    const bool waited = child > 0 && waitpid(child, &status, 0) == child;
    std::error_code ignored;
    fs::remove_all(home, ignored);
    if (child < 0) return failed(std::string("cannot start the point's process: ") + std::strerror(errno));
    if (waited && WIFSIGNALED(status))
        return failed(fmt::format("the point's simulation died of signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status))));
    try {
        return measurement_from_json(nlohmann::json::parse(text));
    } catch (const std::exception&) {
        return failed(fmt::format("the point's simulation ended without a result (exit status {})",
                                  waited && WIFEXITED(status) ? WEXITSTATUS(status) : -1));
    }
}

// A value as one shell word.
std::string shell_word(const std::string& value) {
    const bool plain = !value.empty() && value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                                 "0123456789_./:=+-,@%") == std::string::npos;
    if (plain) return value;
    std::string quoted = "'";
    for (char c : value) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// The program file the commands write and run, named after the point.
std::string program_file(const SweepPoint& p) {
    std::string name = fmt::format("{}-{}-{}-{}-c{}-s{}{}-b{}.bin", fs::path(p.model).stem().string(), p.instance, p.task,
                                   p.effective_dtype(), p.cores, p.seq, p.training() ? "-ga" + p.grad_accum : "", p.batch);
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
    return name;
}

std::string config_options(const SweepSettings& s) {
    std::string out;
    for (const std::string& f : s.config_files) out += " --config " + shell_word(f);
    return out;
}

}  // namespace

SweepMeasurement measure_sweep_point(const SweepPoint& point, const SweepSettings& settings) {
    return measure_in_child([&] {
        return point.training() ? measure_training(point, settings) : measure_inference(point, settings);
    });
}

std::string sweep_build_command(const SweepPoint& p, const SweepSettings& s) {
    if (p.training())
        return fmt::format("neuron-build bert-train --task {} --model {} --seq {} --micro-batch {} --grad-accum {} --cores {} "
                           "--dtype {} --timing-only --instance {}{} -o {}",
                           shell_word(p.task), shell_word(p.model), shell_word(p.seq), shell_word(p.batch),
                           shell_word(p.grad_accum), shell_word(p.cores), shell_word(p.effective_dtype()),
                           shell_word(p.instance), config_options(s), program_file(p));
    return fmt::format("neuron-build bert --model {} --seq {} --batch {} --dtype {} --cores {} --timing-only --instance {}{} -o {}",
                       shell_word(p.model), shell_word(p.seq), shell_word(p.batch), shell_word(p.effective_dtype()),
                       shell_word(p.cores), shell_word(p.instance), config_options(s), program_file(p));
}

std::string sweep_run_command(const SweepPoint& p, const SweepSettings& s) {
    if (p.training())
        return fmt::format("neuron-sim --instance {}{} train {} --steps {}", shell_word(p.instance), config_options(s),
                           program_file(p), s.steps);
    return fmt::format("neuron-sim --instance {}{} run {} --iterations {}", shell_word(p.instance), config_options(s),
                       program_file(p), s.iterations);
}

}  // namespace nsim::tools
