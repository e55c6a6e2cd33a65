// What the library throws for anything a user can cause and fix (bad program, unknown tensor, cores
// busy, device failed...): one line, said in the user's terms. The tools print it as their error
// line; the Python module raises it as neuron_sim.Error (tensor problems as KeyError, ValueError or
// TypeError, from tensor_files::TensorFileError).
#pragma once

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace nsim::library {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// "cannot write the WHAT PATH: REASON", the reason from errno as the failed open or write left it ("Is a
// directory", "No such file or directory", "Permission denied"), so the user knows what to change.
inline Error cannot_write(const std::string& what, const std::string& path, int error_number = errno) {
    std::string message = "cannot write the " + what + " " + path;
    if (error_number) message += std::string(": ") + std::strerror(error_number);
    return Error(message);
}

}  // namespace nsim::library
