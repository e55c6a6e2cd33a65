// libFuzzer target: arbitrary bytes as a checkpoint's model.safetensors (header, every tensor read
// as floats) and as its config.json. Any crash or sanitizer report is a bug; an InputError is the
// expected answer to garbage.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "bert/bert_config.h"
#include "bert/safetensors_dtype.h"
#include "bert/safetensors_reader.h"
#include "common/input_error.h"

namespace {

// The readers take files (they name them in their messages), so each input is written to one.
std::filesystem::path written(const uint8_t* data, size_t size) {
    static const std::filesystem::path file =
        std::filesystem::temp_directory_path() / ("nsim-checkpoint-fuzz-" + std::to_string(getpid()));
    FILE* out = std::fopen(file.c_str(), "wb");
    if (!out) return {};
    std::fwrite(data, 1, size, out);
    std::fclose(out);
    return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::filesystem::path file = written(data, size);
    if (file.empty()) return 0;
    try {
        const nsim::kernels::SafetensorsReader reader(file);
        for (const auto& tensor : reader.tensors())
            if (nsim::kernels::is_float_weight_dtype(tensor.dtype)) (void)reader.read_float(tensor);
    } catch (const nsim::kernels::InputError& e) {
        (void)e.what();
    }
    try {
        (void)nsim::kernels::read_bert_config(file);
    } catch (const nsim::kernels::InputError& e) {
        (void)e.what();
    }
    return 0;
}
