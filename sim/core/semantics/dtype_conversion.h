// Element types as the hardware stores them, converted to and from the fp32 the engines compute in.
//
// Conventions (chosen here, tested exhaustively in tests/semantics/dtype_conversion_test.cpp):
// - Every conversion from fp32 rounds to nearest, ties to even (RNE), the hardware's rounding
//   (hardware.md 3.1, ScalarE "FP32 compute", PSUM fp32; NKI documents RNE for its casts).
// - bf16, fp16: IEEE-style. Overflow rounds to +-inf, NaN stays NaN (quiet, sign and the top payload
//   bits kept for bf16; canonical quiet NaN for fp16), subnormals kept (no flush to zero).
// - fp8 e4m3 is OCP FP8 E4M3 ("e4m3fn"): bias 7, no infinities, NaN = S.1111.111, largest 448.
//   fp8 e5m2 is OCP FP8 E5M2: bias 15, IEEE-like with infinities, largest finite 57344.
//   Conversions to fp8 use the OCP "saturating" mode: a finite value whose rounded magnitude exceeds
//   the largest finite value becomes +-largest finite (never NaN or inf); NaN stays NaN (S.1111.111
//   for e4m3, S.11111.10 for e5m2); infinity stays infinity in e5m2 and saturates to +-448 in e4m3,
//   which has no infinity. Saturation is what keeps fp8 activations finite; a non-saturating
//   converter would turn every overflow into NaN.
// - int8, uint8, int32: RNE to an integer, then clamped to the type's range; NaN becomes 0.
// - Every bf16/fp16/fp8/int8/uint8 value is exact in fp32; int32 beyond 2^24 is rounded (RNE) when
//   converted to fp32 (raw copies between equal types keep it exact).
#pragma once

#include <cstddef>
#include <cstdint>

#include "isa/types.h"

namespace nsim::sim::core::dtype {

float bf16_to_float(uint16_t bits);
uint16_t float_to_bf16(float value);
float fp16_to_float(uint16_t bits);
uint16_t float_to_fp16(float value);
float fp8e4m3_to_float(uint8_t bits);
uint8_t float_to_fp8e4m3(float value);
float fp8e5m2_to_float(uint8_t bits);
uint8_t float_to_fp8e5m2(float value);
int8_t float_to_int8(float value);
uint8_t float_to_uint8(float value);
int32_t float_to_int32(float value);
// Integer sources (iota) that must not pass through fp32: int32 exactly, others like from fp32.
void encode_integer(isa::DType type, int64_t value, uint8_t* destination);

// Bulk conversions of `count` packed elements of `type` (the hot path of every operand access).
void decode(isa::DType type, const uint8_t* source, float* destination, size_t count);
void encode(isa::DType type, const float* source, uint8_t* destination, size_t count);

// Stochastic rounding (rounding_state.h) of fp32 into bf16, fp16 or fp8 (rounds_stochastically):
// the value's fp32 bits below the output ulp plus the low bits of random[i], carried into the kept
// bits, round up with probability (distance to the lower neighbour) / ulp. Values the type holds
// exactly stay exact; overflow, NaN, infinity and saturation are as in encode.
bool rounds_stochastically(isa::DType type);
void encode_stochastic(isa::DType type, const float* source, uint8_t* destination, size_t count,
                       const uint32_t* random);

// One value rounded to `type` and back: what storing fp32 in that type keeps.
float round_to(isa::DType type, float value);

}  // namespace nsim::sim::core::dtype
