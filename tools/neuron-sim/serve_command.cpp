#include "neuron-sim/serve_command.h"

#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/tool_main.h"
#include "isa/container_io.h"
#include "library/instance.h"
#include "library/program_preparation.h"
#include "library/program_session.h"
#include "library/training_run.h"
#include "serving_simulation.h"

namespace nsim::tools {

int run_serve(const MachineSelection& machine, const ServeOptions& options) {
    const config::HostSpec spec = machine.resolve_host();
    isa::Container program = library::read_program(options.program);
    library::refuse_training_program(program, options.program, "serve");
    if (!library::is_built_model(program))
        throw UserError(options.program + " is not a model built by neuron-build (serve needs its batch and copies)");
    library::Instance instance(spec);
    library::Session session(instance, std::move(program), false);

    // Every copy runs the compiled shape (short batches are padded), so one simulated execution of
    // the program - all copies at once, sharing DMA and device memory as they do under load - gives
    // the PCIe + engine time; only the host-side embedding depends on how many requests are real.
    std::optional<library::ExecutionTiming> compiled_shape;
    auto execution_time = [&](uint32_t real) {
        if (!compiled_shape) compiled_shape = session.execute();
        return session.host_embedding_s(real) + compiled_shape->runtime_call_s;
    };
    serving::ServingSetup setup;
    setup.copies = session.copies();
    setup.max_batch = session.batch();
    setup.clients = options.clients;
    setup.requests_per_client = options.requests;
    setup.max_batch_delay_s = options.max_batch_delay_ms / 1e3;
    const serving::ServingResult result = serving::simulate_serving(setup, execution_time);

    const double p50 = 1e3 * result.latency_percentile_s(50), p90 = 1e3 * result.latency_percentile_s(90),
                 p99 = 1e3 * result.latency_percentile_s(99);
    if (options.json) {
        nlohmann::json report = {
            {"model", session.program().metadata_value("model")},
            {"instance", spec.instance.name},
            {"copies", setup.copies},
            {"batch", setup.max_batch},
            {"clients", setup.clients},
            {"requests", result.requests},
            {"executions", result.executions},
            {"padded_slots", result.padded_slots},
            {"mean_batch", result.mean_batch()},
            {"throughput_per_s", result.inferences_per_s},
            {"latency_ms", {{"p50", p50}, {"p90", p90}, {"p99", p99}}},
            {"execution_ms", {{"device", 1e3 * compiled_shape->device_s},
                              {"pcie_and_runtime", 1e3 * (compiled_shape->runtime_call_s - compiled_shape->device_s)},
                              {"host_embedding_full_batch", 1e3 * session.host_embedding_s(setup.max_batch)}}},
            {"simulated_s", result.makespan_s},
        };
        std::cout << report.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("serving {} on {}: {} cop{} x batch {}, {} clients x {} requests, batch delay {} ms\n",
                             session.program().metadata_value("model"), spec.instance.name, setup.copies,
                             setup.copies == 1 ? "y" : "ies", setup.max_batch, setup.clients, setup.requests_per_client,
                             options.max_batch_delay_ms);
    std::cout << fmt::format("one execution      {:.3f} ms (engines {:.3f} ms, PCIe + runtime {:.3f} ms, host embedding {:.3f} ms)\n",
                             1e3 * execution_time(setup.max_batch), 1e3 * compiled_shape->device_s,
                             1e3 * (compiled_shape->runtime_call_s - compiled_shape->device_s),
                             1e3 * session.host_embedding_s(setup.max_batch));
    std::cout << fmt::format("throughput         {:.1f} inferences/s ({} requests in {:.3f} s simulated)\n",
                             result.inferences_per_s, result.requests, result.makespan_s);
    std::cout << fmt::format("latency            p50 {:.2f} ms   p90 {:.2f} ms   p99 {:.2f} ms\n", p50, p90, p99);
    std::cout << fmt::format("batches            {} executions, {:.2f} real requests each, {} padded slots\n",
                             result.executions, result.mean_batch(), result.padded_slots);
    return 0;
}

}  // namespace nsim::tools
