#include <cstring>

#include "python_module.h"

namespace nsim::python {

npy::Array to_npy(const py::handle& object) {
    // C order and native (little-endian on every host we build for) byte order, as .npy files hold them.
    const py::array array = py::array::ensure(object, py::array::c_style);
    if (!array) throw py::type_error("expected a numpy array");
    const std::string kind = py::str(array.dtype().attr("kind"));
    if (kind != "f" && kind != "i" && kind != "u" && kind != "b")
        throw py::type_error("expected a numeric numpy array, not one of dtype " + std::string(py::str(array.dtype())));
    npy::Array out;
    out.descr = py::str(array.dtype().attr("str"));
    if (array.itemsize() == 1 && !out.descr.empty()) out.descr[0] = '|';   // one-byte types have no byte order
    for (py::ssize_t d = 0; d < array.ndim(); ++d) out.shape.push_back(uint64_t(array.shape(d)));
    out.data.resize(size_t(array.nbytes()));
    if (!out.data.empty()) std::memcpy(out.data.data(), array.data(), out.data.size());
    return out;
}

py::array to_numpy(const npy::Array& array) {
    std::vector<py::ssize_t> shape(array.shape.begin(), array.shape.end());
    py::array out(py::dtype(array.descr), shape);
    if (!array.data.empty()) std::memcpy(out.mutable_data(), array.data.data(), array.data.size());
    return out;
}

}  // namespace nsim::python
