// The floating-point work in a program's instruction stream, per program core, the way neuron-profile
// counts it (../shared/reference/tools.md section 4):
//   model_flops     2 x K x M x N for every matmul on a tensor engine (K the contraction, M and N the
//                   stationary and moving free sizes): the model's own multiply-adds;
//   transpose_flops 2 x P x F x P for every transpose on a tensor engine (a [P, F] tile multiplied by
//                   the identity, as the hardware does it: matmul K = P, M = F, N = P);
//   hardware_flops  both: what the tensor engine actually computed.
// Element-wise work on the other engines is not counted (neuron-profile does not count it either).
// Each count also comes as `peak_seconds`: the time the work would take at the chip's peak rate for
// its data type (configs/chips peak_flops, per core; a matmul's type is its moving operand's), so that
// utilisation of a program that mixes types is still (work at peak) / (time available).
#pragma once

#include <cstdint>
#include <vector>

#include "config/host_spec.h"
#include "isa/container.h"

namespace nsim::sim::profile {

struct FlopCount {
    double flops = 0;
    double peak_seconds = 0;  // flops / peak of their type, summed
    uint64_t instructions = 0;

    FlopCount& operator+=(const FlopCount& other);
};

struct CoreFlops {
    FlopCount model;      // matmuls
    FlopCount transpose;  // tensor-engine transposes
    FlopCount hardware() const;
};

// One execution's work, by program core (program.cores_needed entries). Without `spec` (no chip at
// hand), peak_seconds stay 0.
// Of one execution of graph `graph` (isa::Container::graphs; a program without names has only graph 0).
std::vector<CoreFlops> flops_per_core(const isa::Container& program, const config::NeuronCoreSpec* spec = nullptr,
                                      uint32_t graph = 0);

}  // namespace nsim::sim::profile
