// The parts of the neuron_sim Python module (neuron_sim_module.cpp puts them together): programs,
// instances and runs (program_bindings.cpp), the kernel builder (builder_bindings.cpp), and numpy
// arrays to and from the library's npy::Array (numpy_arrays.cpp).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <string>

#include "config/host_spec.h"
#include "npy_file.h"

namespace nsim::python {

namespace py = pybind11;

void bind_programs(py::module_& module);
void bind_builder(py::module_& module);

// A numpy array (any object numpy can make one of) as the library takes it: numpy's type string,
// shape, C-order little-endian bytes.
npy::Array to_npy(const py::handle& object);
// A copy of `array` as a numpy array.
py::array to_numpy(const npy::Array& array);

// A Python int for an unsigned C++ parameter: the bindings take int64_t and check it here, because
// pybind's own refusal of -1 is a many-line TypeError listing every overload, where this is one
// ValueError naming the argument ("iterations must not be negative (it is -1)").
uint32_t unsigned_arg(int64_t value, const char* name);
uint64_t unsigned_arg64(int64_t value, const char* name);

// The host an instance name (and configuration files) describes, any failure to find it as
// neuron_sim.Error (library::Error): "unknown instance 'nope' (...)".
config::HostSpec host_spec_or_error(const std::function<config::HostSpec()>& resolve);

}  // namespace nsim::python
