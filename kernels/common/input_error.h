// The one exception type of the host-side BERT pieces (configs, checkpoints, vocabularies, sentence
// files): a problem in a file the user gave, worded as one line that names the file and what is wrong.
// Tools print what() as is.
#pragma once

#include <stdexcept>

namespace nsim::kernels {

class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace nsim::kernels
