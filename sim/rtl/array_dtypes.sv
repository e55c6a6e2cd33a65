// The input data types the array takes and how a raw SBUF element becomes the 32-bit word a PE
// works on. Floating-point types widen to fp32 exactly (every bf16/fp16 value is an fp32 value);
// int8 words carry two elements, contraction rows 2k and 2k+1, in bits [7:0] and [15:8].
package array_dtypes;

  localparam logic [1:0] INT8 = 2'd0;
  localparam logic [1:0] BF16 = 2'd1;
  localparam logic [1:0] FP16 = 2'd2;
  localparam logic [1:0] FP32 = 2'd3;

  // Normal fp16 and zeros; fp16 subnormals, infinities and NaNs are outside the PE's fp32 scope.
  function automatic logic [31:0] fp16_to_fp32(input logic [15:0] h);
    if (h[14:10] == 5'd0) return {h[15], 31'd0};
    return {h[15], 8'(h[14:10]) + 8'd112, h[9:0], 13'd0};
  endfunction

  function automatic logic [31:0] to_array_word(input logic [1:0] dtype, input logic [31:0] raw);
    case (dtype)
      BF16: return {raw[15:0], 16'd0};
      FP16: return fp16_to_fp32(raw[15:0]);
      FP32: return raw;
      default: return {16'd0, raw[15:0]};
    endcase
  endfunction

  // Contraction rows one PE row holds.
  function automatic logic [1:0] rows_per_pe(input logic [1:0] dtype);
    return dtype == INT8 ? 2'd2 : 2'd1;
  endfunction

endpackage
