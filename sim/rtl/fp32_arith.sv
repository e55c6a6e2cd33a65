// IEEE-754 binary32 multiply and add, round to nearest even: the arithmetic of one PE's
// floating-point MAC. Products of bf16/fp16/fp8 inputs are exact in fp32, so for them only the
// additions round; fp32 x fp32 products round once, as a C++ `float` multiply does.
// Scope (the co-simulation keeps its data inside it): normal numbers and zeros. A result below the
// normal range flushes to a signed zero and one above it becomes infinity; NaN and infinite inputs
// and subnormal inputs are not modelled.
package fp32_arith;

  // Exponent field 0: zero (subnormals, out of scope, count as zero).
  function automatic logic is_zero(input logic [7:0] exponent_field);
    return exponent_field == 8'd0;
  endfunction

  // Rounds a normalised significand {1, 23 fraction bits} with guard and sticky bits (RNE) and packs.
  function automatic logic [31:0] round_pack(input logic sign, input logic signed [10:0] exponent,
                                             input logic [23:0] significand, input logic guard,
                                             input logic sticky);
    logic [24:0] rounded;
    logic signed [10:0] e;
    rounded = {1'b0, significand} + 25'(guard && (sticky || significand[0]));
    e = exponent;
    if (rounded[24]) begin
      rounded = rounded >> 1;
      e = e + 11'sd1;
    end
    if (e >= 11'sd255) return {sign, 8'hff, 23'd0};
    if (e <= 11'sd0) return {sign, 31'd0};
    return {sign, e[7:0], rounded[22:0]};
  endfunction

  function automatic logic [31:0] fp32_mul(input logic [31:0] a, input logic [31:0] b);
    logic sign;
    logic [47:0] product;
    logic signed [10:0] exponent;
    sign = a[31] ^ b[31];
    if (is_zero(a[30:23]) || is_zero(b[30:23])) return {sign, 31'd0};
    product = {1'b1, a[22:0]} * {1'b1, b[22:0]};
    exponent = 11'(signed'({3'b0, a[30:23]})) + 11'(signed'({3'b0, b[30:23]})) - 11'sd127;
    if (product[47])
      return round_pack(sign, exponent + 11'sd1, product[47:24], product[23], |product[22:0]);
    return round_pack(sign, exponent, product[46:23], product[22], |product[21:0]);
  endfunction

  function automatic logic [31:0] fp32_add(input logic [31:0] a, input logic [31:0] b);
    logic [31:0] greater, lesser;
    logic [26:0] greater_sig, lesser_sig, shifted;  // {1, fraction, guard, round, sticky}
    logic [27:0] sum;
    logic [7:0] distance;
    logic signed [10:0] exponent;
    int unsigned leading;
    if (is_zero(a[30:23]) && is_zero(b[30:23])) return {a[31] & b[31], 31'd0};
    if (is_zero(a[30:23])) return b;
    if (is_zero(b[30:23])) return a;
    if (a[30:0] >= b[30:0]) begin
      greater = a;
      lesser = b;
    end else begin
      greater = b;
      lesser = a;
    end
    greater_sig = {1'b1, greater[22:0], 3'b000};
    lesser_sig = {1'b1, lesser[22:0], 3'b000};
    distance = greater[30:23] - lesser[30:23];
    if (distance >= 8'd27) shifted = 27'd1;  // all of it below the round bit: sticky only
    else begin
      shifted = lesser_sig >> distance;
      if ((lesser_sig & ((27'd1 << distance) - 27'd1)) != 27'd0) shifted[0] = 1'b1;
    end
    exponent = 11'(signed'({3'b0, greater[30:23]}));
    if (greater[31] == lesser[31]) begin
      sum = {1'b0, greater_sig} + {1'b0, shifted};
      if (sum[27]) begin
        sum = {1'b0, sum[27:2], sum[1] | sum[0]};
        exponent = exponent + 11'sd1;
      end
    end else begin
      sum = {1'b0, greater_sig} - {1'b0, shifted};
      if (sum == 28'd0) return 32'd0;  // exact cancellation is +0 under round to nearest
      leading = 0;
      for (int bit_index = 26; bit_index >= 0; bit_index--) begin
        if (sum[bit_index]) break;
        leading++;
      end
      sum = sum << leading;
      exponent = exponent - 11'(leading);
    end
    return round_pack(greater[31], exponent, sum[26:3], sum[2], sum[1] | sum[0]);
  endfunction

endpackage
