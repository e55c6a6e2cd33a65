// A dense row-major fp32 tensor: how weights and activations are held on the host, whatever dtype
// the checkpoint stored them in.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nsim::kernels {

using Shape = std::vector<size_t>;

size_t element_count(const Shape& shape);
// "[768, 3072]", for messages.
std::string shape_to_string(const Shape& shape);

struct Tensor {
    Shape shape;
    std::vector<float> values;

    Tensor() = default;
    explicit Tensor(Shape s) : shape(std::move(s)), values(element_count(shape), 0.0f) {}
    Tensor(Shape s, std::vector<float> v) : shape(std::move(s)), values(std::move(v)) {}

    size_t size() const { return values.size(); }
    // For 2-D tensors (activations are [tokens, features], Linear weights [out, in]).
    size_t rows() const { return shape.empty() ? 0 : shape.front(); }
    size_t cols() const { return shape.size() < 2 ? 0 : shape[1]; }
    float* row(size_t r) { return values.data() + r * cols(); }
    const float* row(size_t r) const { return values.data() + r * cols(); }
    float& at(size_t r, size_t c) { return values[r * cols() + c]; }
    float at(size_t r, size_t c) const { return values[r * cols() + c]; }
};

}  // namespace nsim::kernels
