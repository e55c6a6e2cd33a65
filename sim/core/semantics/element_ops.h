// The per-element arithmetic of the engines: ALU operators, reductions and activation functions,
// all in fp32 (hardware.md 3.1: the engines compute in FP32 whatever the stored type).
//
// Dispatch happens once per instruction: with_alu / with_reduce / with_activation call a generic
// lambda with the operator as a compile-time constant, so inner loops hold no switch and no
// indirect call.
//
// Choices where NKI is silent (written down here, tested in tests/semantics):
// - Binary operators round their fp32 result once (IEEE add/sub/mul/div); pow, and every activation
//   function, are evaluated in double and rounded once to fp32: a correctly rounded stand-in for the
//   hardware's fp32 function units, whose approximations are not public.
// - max/min (ALU and reductions) propagate NaN: a NaN in either input gives NaN.
// - Comparisons and logical_and/or give 1.0 or 0.0; logical operands are true when != 0.
// - relu(NaN) = NaN; gelu is the erf form, gelu_tanh the tanh approximation
//   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); silu(x) = x * sigmoid(x); gelu_dx the derivative
//   of the erf gelu.
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "isa/types.h"

namespace nsim::sim::core {

template <isa::AluOp Op>
inline float alu(float a, float b) {
    using isa::AluOp;
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    if constexpr (Op == AluOp::Bypass) return a;
    else if constexpr (Op == AluOp::Add) return a + b;
    else if constexpr (Op == AluOp::Subtract) return a - b;
    else if constexpr (Op == AluOp::Multiply) return a * b;
    else if constexpr (Op == AluOp::Divide) return a / b;
    else if constexpr (Op == AluOp::Max) return (a != a || b != b) ? nan : (a > b ? a : b);
    else if constexpr (Op == AluOp::Min) return (a != a || b != b) ? nan : (a < b ? a : b);
    else if constexpr (Op == AluOp::Pow) return float(std::pow(double(a), double(b)));
    else if constexpr (Op == AluOp::IsEqual) return a == b ? 1.0f : 0.0f;
    else if constexpr (Op == AluOp::NotEqual) return a != b ? 1.0f : 0.0f;
    else if constexpr (Op == AluOp::IsGt) return a > b ? 1.0f : 0.0f;
    else if constexpr (Op == AluOp::IsGe) return a >= b ? 1.0f : 0.0f;
    else if constexpr (Op == AluOp::IsLt) return a < b ? 1.0f : 0.0f;
    else if constexpr (Op == AluOp::IsLe) return a <= b ? 1.0f : 0.0f;
    else if constexpr (Op == AluOp::LogicalAnd) return (a != 0.0f && b != 0.0f) ? 1.0f : 0.0f;
    else if constexpr (Op == AluOp::LogicalOr) return (a != 0.0f || b != 0.0f) ? 1.0f : 0.0f;
    else static_assert(Op != Op, "an ALU operator of alu_ops.def without semantics");
}

template <class F>
decltype(auto) with_alu(isa::AluOp op, F&& f) {
    using isa::AluOp;
    switch (op) {
#define NSIM_ALU_OP(id, name) \
    case AluOp::id: return f(std::integral_constant<AluOp, AluOp::id>{});
#include "isa/alu_ops.def"
#undef NSIM_ALU_OP
    }
    throw std::invalid_argument("unknown ALU operator " + std::to_string(unsigned(op)));
}

// Reductions fold left to right in fp32 starting from the first element (so no identity value is
// needed and -0 sums stay -0); ReduceOp::None is not a reduction and is rejected by with_reduce.
template <isa::ReduceOp Op>
inline float reduce_step(float accumulated, float x) {
    using isa::ReduceOp;
    if constexpr (Op == ReduceOp::Add) return accumulated + x;
    else if constexpr (Op == ReduceOp::Max) return alu<isa::AluOp::Max>(accumulated, x);
    else if constexpr (Op == ReduceOp::Min) return alu<isa::AluOp::Min>(accumulated, x);
    else static_assert(Op != Op, "a reduction of reduce_ops.def without semantics");
}

template <class F>
decltype(auto) with_reduce(isa::ReduceOp op, F&& f) {
    using isa::ReduceOp;
    switch (op) {
        case ReduceOp::Add: return f(std::integral_constant<ReduceOp, ReduceOp::Add>{});
        case ReduceOp::Max: return f(std::integral_constant<ReduceOp, ReduceOp::Max>{});
        case ReduceOp::Min: return f(std::integral_constant<ReduceOp, ReduceOp::Min>{});
        case ReduceOp::None: break;
    }
    throw std::invalid_argument("reduction '" + std::string(isa::name_of(op)) + "' is not a reduction");
}

template <isa::ActivationFunction Func>
inline float activate(float x) {
    using isa::ActivationFunction;
    const double v = x;
    if constexpr (Func == ActivationFunction::Identity) return x;
    else if constexpr (Func == ActivationFunction::Relu) return x > 0.0f || x != x ? x : 0.0f;
    else if constexpr (Func == ActivationFunction::Gelu) return float(0.5 * v * (1.0 + std::erf(v * M_SQRT1_2)));
    else if constexpr (Func == ActivationFunction::GeluTanh) {
        constexpr double sqrt_2_over_pi = 0.79788456080286535588;  // sqrt(2 / pi)
        return float(0.5 * v * (1.0 + std::tanh(sqrt_2_over_pi * (v + 0.044715 * v * v * v))));
    } else if constexpr (Func == ActivationFunction::Exp) return float(std::exp(v));
    else if constexpr (Func == ActivationFunction::Tanh) return float(std::tanh(v));
    else if constexpr (Func == ActivationFunction::Sigmoid) return float(1.0 / (1.0 + std::exp(-v)));
    else if constexpr (Func == ActivationFunction::Rsqrt) return float(1.0 / std::sqrt(v));
    else if constexpr (Func == ActivationFunction::Reciprocal) return float(1.0 / v);
    else if constexpr (Func == ActivationFunction::Square) return float(v * v);
    else if constexpr (Func == ActivationFunction::Sqrt) return float(std::sqrt(v));
    else if constexpr (Func == ActivationFunction::Log) return float(std::log(v));
    else if constexpr (Func == ActivationFunction::Silu) return float(v / (1.0 + std::exp(-v)));
    else if constexpr (Func == ActivationFunction::GeluDx) {
        constexpr double inv_sqrt_2pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
        return float(0.5 * (1.0 + std::erf(v * M_SQRT1_2)) + v * inv_sqrt_2pi * std::exp(-0.5 * v * v));
    }
    else static_assert(Func != Func, "an activation function of activation_functions.def without semantics");
}

template <class F>
decltype(auto) with_activation(isa::ActivationFunction func, F&& f) {
    using isa::ActivationFunction;
    switch (func) {
#define NSIM_ACTIVATION(id, name) \
    case ActivationFunction::id: return f(std::integral_constant<ActivationFunction, ActivationFunction::id>{});
#include "isa/activation_functions.def"
#undef NSIM_ACTIVATION
    }
    throw std::invalid_argument("unknown activation function " + std::to_string(unsigned(func)));
}

}  // namespace nsim::sim::core
