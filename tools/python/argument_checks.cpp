#include <limits>

#include "library/library_error.h"
#include "python_module.h"

namespace nsim::python {

uint64_t unsigned_arg64(int64_t value, const char* name) {
    if (value < 0) throw py::value_error(std::string(name) + " must not be negative (it is " + std::to_string(value) + ")");
    return uint64_t(value);
}

uint32_t unsigned_arg(int64_t value, const char* name) {
    if (unsigned_arg64(value, name) > std::numeric_limits<uint32_t>::max())
        throw py::value_error(std::string(name) + " " + std::to_string(value) + " is too large (at most " +
                              std::to_string(std::numeric_limits<uint32_t>::max()) + ")");
    return uint32_t(value);
}

config::HostSpec host_spec_or_error(const std::function<config::HostSpec()>& resolve) {
    try {
        return resolve();
    } catch (const library::Error&) {
        throw;
    } catch (const std::exception& e) {
        throw library::Error(e.what());
    }
}

}  // namespace nsim::python
