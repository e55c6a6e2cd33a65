// neuron-gemm-kernel: writes the hand-scheduled GEMM (kernels/gemm/gemm_kernel.h) as a program file
// that `neuron-sim run` executes, e.g.
//   neuron-gemm-kernel --generation 2 -o gemm.bin && neuron-sim --instance trn1.2xlarge run gemm.bin --trace t.json
#include <iostream>

#include <CLI/CLI.hpp>

#include "common/tool_main.h"
#include "config/config_set.h"
#include "gemm/gemm_kernel.h"
#include "isa/container_io.h"

int main(int argc, char** argv) {
    CLI::App app{"Write the hand-scheduled bf16 GEMM C = A @ B as a NeuronCore program", "neuron-gemm-kernel"};
    nsim::kernels::GemmShape shape;
    uint32_t generation = 2;
    bool single = false, with_data = false;
    std::string output;
    app.add_option("--generation", generation, "NeuronCore generation (N of NeuronCore-vN)");
    app.add_option("-m", shape.m, "Rows of A and C");
    app.add_option("-k", shape.k, "Columns of A, rows of B");
    app.add_option("-n", shape.n, "Columns of B and C");
    app.add_flag("--single-buffered", single, "One buffer of each kind instead of double buffering");
    app.add_flag("--with-data", with_data, "Store seeded pseudo-random A and B in the program");
    uint32_t a_slots = 0, first_group = 1000;
    bool b_in_steps = false;
    app.add_flag("--b-in-steps", b_in_steps, "Load B with the first group's steps instead of all up front");
    app.add_option("--a-slots", a_slots, "SBUF buffers AT streams through (default: the schedule's)");
    app.add_option("--first-group", first_group, "m-tiles accumulated together at the start (default: the schedule's)");
    app.add_option("-o,--output", output, "Program file to write")->required();
    return nsim::tools::run_tool(app, argc, argv, [&] {
        const auto configs = nsim::config::ConfigSet::load(nsim::config::ConfigSet::default_dir());
        for (const auto& name : configs.chip_names()) {
            const auto& core = configs.chip(name).core;
            if (core.version != "v" + std::to_string(generation)) continue;
            auto schedule = single ? nsim::kernels::GemmSchedule::single_buffered()
                                   : nsim::kernels::GemmSchedule::double_buffered();
            if (a_slots) schedule.a_slots = a_slots;
            if (b_in_steps) schedule.b_in_steps = true;
            if (first_group != 1000) schedule.first_group_m_tiles = first_group;
            const auto program = nsim::kernels::build_gemm(core, shape, schedule, with_data);
            nsim::isa::write_file(output, nsim::isa::write_container(program));
            return 0;
        }
        throw nsim::tools::UserError("no chip in the configuration has a NeuronCore-v" + std::to_string(generation));
    });
}
