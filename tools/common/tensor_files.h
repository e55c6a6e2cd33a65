// A program's tensors to and from .npy files: what `neuron-sim run --input NAME=FILE.npy` and
// `--output-dir DIR` do, and what the Python module will do with numpy arrays.
//
// Types: numpy has no bf16 or fp8, so a bf16, fp8e4m3 or fp8e5m2 tensor takes float32 (rounded to the
// tensor's type, nearest-even, as the hardware rounds) and an fp16 tensor takes float16 or float32;
// fp32, int32, int8 and uint8 tensors take exactly float32, int32, int8 and uint8. Outputs are written
// in the same types, narrow floats (bf16, fp16, fp8) widened to float32, which holds them exactly.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "isa/container.h"
#include "npy_file.h"

namespace nsim::tensor_files {

// One line naming the tensor (and the file) that is wrong; `problem` says what kind of wrong, so
// that the Python module raises KeyError, ValueError or TypeError as numpy users expect.
class TensorFileError : public std::runtime_error {
public:
    enum class Problem { Other, UnknownTensor, Missing, Shape, Type };
    explicit TensorFileError(const std::string& message, Problem problem = Problem::Other)
        : std::runtime_error(message), problem(problem) {}
    Problem problem;
};

// "B=inputs/b.npy" -> {"B", "inputs/b.npy"}; TensorFileError when there is no '=' or a side is empty.
std::pair<std::string, std::filesystem::path> parse_binding(const std::string& text);

// The tensor's bytes as the program stores them, from `array` (whose origin `source` names in messages).
std::vector<uint8_t> tensor_bytes(const isa::TensorInfo& tensor, const npy::Array& array, const std::string& source);
// The tensor's bytes as a numpy array (narrow floats widened to float32).
npy::Array tensor_array(const isa::TensorInfo& tensor, const std::vector<uint8_t>& bytes);

// Sets each named tensor's initial data from its file. Inputs and weights can be set (a weight is
// loaded with the program, an input copied in at every execution). Then every input or weight that
// has no data (of its own or from a file) is reported missing: a run with files would otherwise
// compute on zeros without saying so.
void bind_inputs(isa::Container& program, const std::map<std::string, std::filesystem::path>& files);
// The same from arrays in memory (the Python module's numpy inputs), named in messages as
// `inputs['NAME']`.
void bind_arrays(isa::Container& program, const std::map<std::string, npy::Array>& arrays);

// Writes each output tensor as DIR/NAME.npy (DIR made when absent); `bytes_of` gives its contents.
// Returns the files written.
std::vector<std::filesystem::path> write_outputs(const isa::Container& program, const std::filesystem::path& dir,
                                                 const std::function<const std::vector<uint8_t>&(const std::string& name)>& bytes_of);

}  // namespace nsim::tensor_files
