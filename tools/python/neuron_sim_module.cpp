// The neuron_sim Python module: assemble or build kernels, run them on a simulated instance with numpy
// inputs, read numpy outputs and the report (README "Your own kernel from Python").
#include <cstdlib>

#include <systemc>

#include "python_module.h"

// libsystemc's own main() calls sc_main; a Python process never enters through it, but the shared
// library must resolve the symbol when Python loads it (visible: pybind11 hides the module's symbols).
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) { return 1; }

PYBIND11_MODULE(neuron_sim, m) {
    // SystemC prints a banner when it starts, unless told not to (DESIGN.md: tools never show it).
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    m.doc() = "neuron-sim from Python: assemble or build NeuronCore kernels, run them on a simulated AWS Neuron instance "
              "with numpy inputs, read numpy outputs, the timing report and a Chrome trace";
    nsim::python::bind_programs(m);
    nsim::python::bind_builder(m);
}
