// neuron_sim's programs, instances and runs: a thin layer over nsim_library (tools/library).
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "isa/container_io.h"
#include "isa/text_format.h"
#include "library/instance.h"
#include "library/library_error.h"
#include "library/program_preparation.h"
#include "library/program_run.h"
#include "library/trace_file.h"
#include "python_module.h"
#include "race_check/race_checker.h"
#include "tensor_files.h"

namespace nsim::python {
namespace {

// The module's one instance (SystemC elaborates one host per process: library/instance.h).
struct OpenInstance {
    std::string name;
    std::vector<std::string> config_files;
    std::unique_ptr<library::Instance> instance;
};
OpenInstance& open_instance_slot() {
    static OpenInstance slot;
    return slot;
}

library::Instance& open_instance(const std::string& name, const std::vector<std::string>& config_files) {
    OpenInstance& slot = open_instance_slot();
    if (slot.instance) {
        // A name no configuration knows is reported as unknown first: that is the mistake to fix.
        if (slot.name != name || slot.config_files != config_files)
            host_spec_or_error([&] { return library::host_spec(name, config_files); });
        if (slot.name != name || slot.config_files != config_files)
            throw library::Error("this process has instance " + slot.name + " open; a process simulates one host (SystemC "
                                 "elaborates one per process): run another instance in another process");
        return *slot.instance;
    }
    const config::HostSpec spec = host_spec_or_error([&] { return library::use_host(name, config_files); });
    slot.instance = std::make_unique<library::Instance>(spec);
    slot.name = name;
    slot.config_files = config_files;
    return *slot.instance;
}

// Released before the interpreter goes away (atexit), so the runtime lets its cores go while
// everything it uses still exists.
void close_instance() { open_instance_slot().instance.reset(); }

struct Result {
    py::dict outputs;
    py::object report;   // the JSON report as Python objects
    std::string text;    // the report for people, as `neuron-sim run` prints it
};

Result run_program(library::Instance& instance, const isa::Container& program, const py::object& inputs, bool functional,
                   int64_t iteration_count, const std::optional<std::string>& trace,
                   const std::optional<std::string>& output_dir) {
    const uint32_t iterations = unsigned_arg(iteration_count, "iterations");
    if (iterations == 0) throw py::value_error("iterations must be at least 1");
    if (!functional && (!inputs.is_none() || output_dir))
        throw py::value_error("inputs and output_dir need functional=True (a timing run computes no values)");
    isa::Container bound = program;
    if (!inputs.is_none()) {
        std::map<std::string, npy::Array> arrays;
        for (const auto& [name, value] : py::cast<py::dict>(inputs)) arrays[py::cast<std::string>(name)] = to_npy(value);
        bound = library::with_input_arrays(std::move(bound), arrays);
    }
    library::check_runnable(bound, instance.spec());
    library::RunRequest request;
    // The last execution is traced (a path ending in .gz: gzip-compressed).
    library::TraceFile trace_file(library::TraceOptions{trace.value_or("")}, iterations);
    library::Session session(instance, std::move(bound), functional);
    request.iterations = iterations;
    request.trace = &trace_file;
    if (output_dir) request.output_dir = *output_dir;
    const library::RunReport report = library::run(session, request);

    Result result;
    if (functional)
        for (const isa::TensorInfo& t : session.program().tensors)
            if (t.role == isa::TensorRole::Output) result.outputs[py::str(t.name)] = to_numpy(session.output_array(t.name));
    result.report = py::module_::import("json").attr("loads")(library::report_json(report).dump());
    result.text = library::report_text(report, false);
    return result;
}

py::list tensor_list(const isa::Container& program) {
    py::list tensors;
    for (const isa::TensorInfo& t : program.tensors) {
        py::dict d;
        d["name"] = t.name;
        d["role"] = std::string(isa::name_of(t.role));
        d["dtype"] = std::string(isa::name_of(t.dtype));
        d["shape"] = py::tuple(py::cast(t.shape));
        tensors.append(d);
    }
    return tensors;
}

}  // namespace

void bind_programs(py::module_& m) {
    // Never freed: the interpreter may be gone when static objects are destroyed.
    static auto* const error = new py::exception<library::Error>(m, "Error", PyExc_RuntimeError);
    py::register_exception_translator([](std::exception_ptr p) {
        using Problem = tensor_files::TensorFileError::Problem;
        try {
            if (p) std::rethrow_exception(p);
        } catch (const library::Error& e) {
            (*error)(e.what());
        } catch (const tensor_files::TensorFileError& e) {
            // As numpy users expect: a name the program lacks is a key, a shape a value, a dtype a type.
            switch (e.problem) {
                case Problem::UnknownTensor:
                case Problem::Missing: PyErr_SetString(PyExc_KeyError, e.what()); break;
                case Problem::Type: PyErr_SetString(PyExc_TypeError, e.what()); break;
                default: PyErr_SetString(PyExc_ValueError, e.what()); break;
            }
        } catch (const isa::ContainerError& e) {
            (*error)(e.what());
        }
    });

    py::class_<isa::Container>(m, "Program", "A NeuronCore program: tensors, metadata and each core's instruction streams")
        .def_static("read", [](const std::string& path) { return library::read_program(path); },
                    py::arg("path"), "Read a program file (neuron-as, neuron-build or Program.write)")
        .def("write", [](const isa::Container& c, const std::string& path) { isa::write_container_file(path, c); },
             py::arg("path"), "Write the program file (neuron-sim run, check and neuron-objdump read it)")
        .def("disassemble", [](const isa::Container& c) { return isa::disassemble(c); }, "The program as assembly text")
        .def("check", [](const isa::Container& c) {
                 std::vector<std::string> messages;
                 for (const auto& finding : sim::race_check::check(c)) messages.push_back(finding.message);
                 return messages;
             },
             "The race checker's findings (neuron-sim check), one line each; empty when clean")
        .def_property_readonly("tensors", &tensor_list, "Each tensor as a dict: name, role, dtype, shape")
        .def_property_readonly("metadata", [](const isa::Container& c) {
            py::dict d;
            for (const auto& [key, value] : c.metadata) d[py::str(key)] = value;
            return d;
        })
        .def_property_readonly("cores", [](const isa::Container& c) { return c.cores_needed; })
        .def_property_readonly("generation", [](const isa::Container& c) { return c.generation; })
        .def("__repr__", [](const isa::Container& c) {
            return "<neuron_sim.Program v" + std::to_string(c.generation) + ", " + std::to_string(c.cores_needed) + " core(s), " +
                   std::to_string(c.tensors.size()) + " tensors>";
        });

    m.def("assemble", &library::assemble, py::arg("text"), py::arg("file") = "<text>",
          "Assemble text (isa/FORMAT.md section 9) into a Program, validated against its generation; "
          "neuron_sim.Error 'FILE:LINE:COLUMN: error: ...' at the first problem");

    py::class_<Result>(m, "Result", "What a run returns")
        .def_readonly("outputs", &Result::outputs, "Output tensors by name, as numpy arrays (functional runs; bf16, fp16 "
                                                   "and fp8 widened to float32)")
        .def_readonly("report", &Result::report, "The report as a dict (the keys of neuron-sim run --json)")
        .def_readonly("text", &Result::text, "The report as neuron-sim run prints it");

    py::class_<library::Instance, std::unique_ptr<library::Instance, py::nodelete>>(m, "Instance",
        "A simulated instance this process has opened (open_instance): its driver and a runtime holding its NeuronCores")
        .def_property_readonly("name", [](const library::Instance& i) { return i.spec().instance.name; })
        .def("run", &run_program, py::arg("program"), py::arg("inputs") = py::none(), py::arg("functional") = true,
             py::arg("iterations") = 1, py::arg("trace") = py::none(), py::arg("output_dir") = py::none(),
             "Load the program through the runtime and the driver, set `inputs` (a dict of numpy arrays by input or weight "
             "name), execute it `iterations` times (timing, and values when `functional`), write the last execution's "
             "Chrome trace to `trace` (a path) and the outputs as OUTPUT_DIR/NAME.npy; returns a Result");

    m.def("open_instance", &open_instance, py::arg("name"), py::arg("config_files") = std::vector<std::string>{},
          py::return_value_policy::reference,
          "Open the simulated instance `name` (e.g. 'trn1.2xlarge') in this process, or return it when it is open already. "
          "A process opens one instance (SystemC elaborates one host per process). The host's state lives in "
          "$NEURON_SIM_HOME (default ~/.neuron-sim), which neuron-ls and neuron-top read");
    m.def("_close_instance", &close_instance);
    py::module_::import("atexit").attr("register")(m.attr("_close_instance"));
}

}  // namespace nsim::python
