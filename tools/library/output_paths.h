// Output paths checked before any work: a run of minutes that then cannot write its --profile file or
// its --save checkpoint has wasted those minutes, so every tool (and the Python module) asks here
// first, as --trace does by opening its file up front. Failures are one-line library Errors, said in
// the same words as a failed write ("cannot write the profile file P: No such file or directory").
#pragma once

#include <string>

namespace nsim::library {

// `path` can be written as a file: it is opened for appending (an existing file keeps its contents)
// and, when it did not exist, removed again, so a run that fails later leaves nothing behind. Only an
// open tells: as root, access(2) says /proc is writable.
void check_output_file(const std::string& what, const std::string& path);

// `dir` is a directory or can be made one (every missing level is made and removed again). `option`
// names it in the message: "--save /proc/x: No such file or directory".
void check_output_directory(const std::string& option, const std::string& dir);

}  // namespace nsim::library
