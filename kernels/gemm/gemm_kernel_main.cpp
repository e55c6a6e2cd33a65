// neuron-gemm-kernel: writes the hand-scheduled GEMM (kernels/gemm/gemm_kernel.h) as a program file
// that `neuron-sim run` executes, e.g.
//   neuron-gemm-kernel --generation 2 -o gemm.bin && neuron-sim --instance trn1.2xlarge run gemm.bin --trace t.json
// The schedule's knobs can be overridden one by one to explore it (--load-lanes 8, --a-slots 3, ...).
#include <iostream>
#include <map>

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
    app.add_option("-o,--output", output, "Program file to write")->required();

    // Overrides of the chosen schedule's fields (see GemmSchedule); unset ones keep its value.
    using Field = uint32_t nsim::kernels::GemmSchedule::*;
    const std::vector<std::tuple<std::string, Field, std::string>> knobs = {
        {"--group", &nsim::kernels::GemmSchedule::group_m_tiles, "m-tiles accumulated together at the start"},
        {"--group-step-k", &nsim::kernels::GemmSchedule::group_step_k_blocks, "k-blocks per group step"},
        {"--group-part-m", &nsim::kernels::GemmSchedule::group_part_m_tiles, "m-tiles per AT transfer in the group"},
        {"--column-step-m", &nsim::kernels::GemmSchedule::column_step_m_tiles, "later m-tiles per step"},
        {"--column-parts", &nsim::kernels::GemmSchedule::column_parts, "AT transfers per later m-tile"},
        {"--a-slots", &nsim::kernels::GemmSchedule::a_slots, "SBUF slots the steps' AT rotates through"},
        {"--tail-min-n", &nsim::kernels::GemmSchedule::tail_min_n, "narrowest piece of the halved last tile (0: none)"},
        {"--out-slots", &nsim::kernels::GemmSchedule::out_slots, "SBUF buffers for evacuated output tiles"},
        {"--psum-banks", &nsim::kernels::GemmSchedule::psum_banks, "PSUM banks the output tiles rotate through"},
        {"--load-lanes", &nsim::kernels::GemmSchedule::load_lanes, "DMA queues per engine for loads"},
        {"--store-lanes", &nsim::kernels::GemmSchedule::store_lanes, "DMA queues per engine for stores"},
    };
    std::map<std::string, uint32_t> overrides;
    for (const auto& [flag, field, help] : knobs) {
        (void)field;
        app.add_option_function<uint32_t>(flag, [&overrides, flag = flag](uint32_t v) { overrides[flag] = v; }, help);
    }
    return nsim::tools::run_tool(app, argc, argv, [&] {
        const auto configs = nsim::config::ConfigSet::load(nsim::config::ConfigSet::default_dir());
        for (const auto& name : configs.chip_names()) {
            const auto& core = configs.chip(name).core;
            if (core.version != "v" + std::to_string(generation)) continue;
            auto schedule = single ? nsim::kernels::GemmSchedule::single_buffered()
                                   : nsim::kernels::GemmSchedule::double_buffered();
            for (const auto& [flag, field, help] : knobs)
                if (overrides.count(flag)) schedule.*field = overrides.at(flag);
            const auto program = nsim::kernels::build_gemm(core, shape, schedule, with_data);
            nsim::isa::write_container_file(output, program);
            return 0;
        }
        throw nsim::tools::UserError("no chip in the configuration has a NeuronCore-v" + std::to_string(generation));
    });
}
