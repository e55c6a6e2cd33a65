// Runs a program built by the kernels on a simulated machine, functionally: the platform elaborated
// from the shipped configs, the program placed and its weights loaded, inputs written and outputs
// read by tensor name.
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "builder/program_builder.h"
#include "core/engine_scheduler.h"
#include "isa/validator.h"
#include "validation/generation_limits.h"
#include "sim/test_host.h"

namespace nsim::kernels::testing {

inline config::NeuronCoreSpec core_spec(const std::string& instance) {
    return test::shipped_configs().host(instance).chip.core;
}

struct DeviceRun {
    std::unique_ptr<sim::Platform> platform;
    isa::Container program;
    sim::core::ProgramPlacement placement;

    DeviceRun(const std::string& instance, isa::Container p) : platform(test::elaborate(instance)), program(std::move(p)) {
        const auto problems = isa::validate(program, sim::limits_of_generation(test::shipped_configs(), program.generation));
        if (!problems.empty()) throw std::runtime_error("invalid program: " + problems.front().text());
        placement = sim::core::place_program(program, *platform);
        sim::core::load_tensors(program, placement, *platform);
    }

    const isa::TensorInfo& tensor(const std::string& name) const {
        for (const auto& t : program.tensors)
            if (t.name == name) return t;
        throw std::out_of_range("no tensor " + name);
    }

    void write(const std::string& name, const std::vector<float>& values) {
        const isa::TensorInfo& t = tensor(name);
        const std::vector<uint8_t> bytes = builder::encode_values(values, t.dtype);
        if (bytes.size() != t.size_bytes()) throw std::invalid_argument("wrong size for " + name);
        sim::core::write_device_tensor(*platform, placement, t, bytes.data(), bytes.size());
    }

    void write_ints(const std::string& name, const std::vector<int32_t>& values) {
        write(name, std::vector<float>(values.begin(), values.end()));
    }

    std::vector<float> read(const std::string& name) const { return read_core(0, name); }

    // Program core `core`'s copy (of a program whose cores keep their own tensors, sim::core::has_region_per_core).
    void write_core(unsigned core, const std::string& name, const std::vector<float>& values) {
        const isa::TensorInfo& t = tensor(name);
        const std::vector<uint8_t> bytes = builder::encode_values(values, t.dtype);
        if (bytes.size() != t.size_bytes()) throw std::invalid_argument("wrong size for " + name);
        sim::core::write_core_tensor(*platform, placement, core, t, bytes.data(), bytes.size());
    }
    std::vector<float> read_core(unsigned core, const std::string& name) const {
        const isa::TensorInfo& t = tensor(name);
        std::vector<uint8_t> bytes(t.size_bytes());
        sim::core::read_core_tensor(*platform, placement, core, t, bytes.data(), bytes.size());
        return builder::decode_values(bytes.data(), bytes.size() / isa::size_in_bytes(t.dtype), t.dtype);
    }

    // One execution of graph `graph` (isa::Container::graphs; "": the only one).
    sim::core::RunStatistics run(bool functional = true, const std::string& graph = "") {
        sim::core::ExecutionOptions o;
        o.functional = functional;
        const std::optional<uint32_t> index = program.graph_index(graph);
        if (!index) throw std::invalid_argument("no graph " + graph);
        o.graph = *index;
        sim::core::EngineScheduler engines(*platform, program, placement, o);
        return engines.run();
    }
};

// Largest |a - b| over the largest |b|: the "relative" error of a whole tensor.
inline double relative_error(const std::vector<float>& actual, const std::vector<float>& expected) {
    if (actual.size() != expected.size()) return INFINITY;
    double worst = 0, scale = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
        worst = std::max(worst, std::fabs(double(actual[i]) - expected[i]));
        scale = std::max(scale, std::fabs(double(expected[i])));
    }
    return scale > 0 ? worst / scale : worst;
}

}  // namespace nsim::kernels::testing
