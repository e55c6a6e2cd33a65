// What the library throws for anything a user can cause and fix (bad program, unknown tensor, cores
// busy, device failed...): one line, said in the user's terms. The tools print it as their error
// line; the Python module raises it as neuron_sim.Error (tensor problems as KeyError, ValueError or
// TypeError, from tensor_files::TensorFileError).
#pragma once

#include <stdexcept>

namespace nsim::library {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace nsim::library
