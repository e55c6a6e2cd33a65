// A program on its way to an instance: read from a container's bytes, given the user's input values
// (from .npy files or numpy arrays, tools/common/tensor_files.h), and checked against the instance
// before any host is touched - what the runtime would refuse too, said in the program's terms.
#pragma once

#include <cstdint>
#include <map>
#include <filesystem>
#include <string>
#include <vector>

#include "config/host_spec.h"
#include "isa/container.h"
#include "npy_file.h"

namespace nsim::library {

// Assembly text (isa/FORMAT.md section 9) as a program, validated against its generation's limits;
// an Error "FILE:LINE:COLUMN: error: ..." at the first problem (and how many more).
isa::Container assemble(const std::string& source, const std::string& file);

// The program in the file `path` (read a section at a time: isa::read_container_file); an Error
// naming the file when it is not one.
isa::Container read_program(const std::string& path);

// The generation, the cores, the tensors' sizes, and every rule of the validator (with the limits of
// the host's chip, the ones the runtime checks): an Error with the first problem and how many more.
void check_runnable(const isa::Container& program, const config::HostSpec& spec);

// The program with input or weight values as those tensors' data (the runtime copies an input's data
// in at each execution and loads a weight's with the program), for the runtime to load as it is. The values
// come from `bindings` ("NAME=FILE.npy" each) or from `arrays` by name. Throws
// tensor_files::TensorFileError (one line naming the tensor) for an unknown name, a wrong shape or
// type, or an input or weight left without data.
isa::Container with_input_files(isa::Container program, const std::vector<std::string>& bindings);
isa::Container with_input_arrays(isa::Container program, const std::map<std::string, npy::Array>& arrays);

}  // namespace nsim::library
