// The parts of the neuron_sim Python module (neuron_sim_module.cpp puts them together): programs,
// instances and runs (program_bindings.cpp), the kernel builder (builder_bindings.cpp), and numpy
// arrays to and from the library's npy::Array (numpy_arrays.cpp).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

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

}  // namespace nsim::python
