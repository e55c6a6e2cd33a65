// One PE of the weight-stationary array. It holds two stationary weights (banks), so the next
// tile's LoadStationary can fill one bank while the current moving stream uses the other. The
// moving operand passes on to the right, the partial sum on downwards, both through a register.
//   float mode: psum_out = fp32_add(psum_in, fp32_mul(moving, weight))  (operands already fp32)
//   int8 mode:  psum_out = psum_in + m[7:0]*w[7:0] + m[15:8]*w[15:8]     (two contraction rows per PE)
// A row beyond the matmul's contraction (moving_valid low) passes the partial sum on unchanged.
module processing_element #(
  parameter int COLUMN = 0,      // this PE's column: which slot of the weight bus it captures
  parameter int LOAD_COLS = 4    // stationary columns the weight bus carries per cycle
) (
  input  logic        clk,
  // moving operand, entering from the left
  input  logic        moving_valid_in,
  input  logic        moving_bank_in,
  input  logic        moving_int_in,
  input  logic [31:0] moving_in,
  output logic        moving_valid_out,
  output logic        moving_bank_out,
  output logic        moving_int_out,
  output logic [31:0] moving_out,
  // stationary weights, travelling right one column per cycle like the moving data
  input  logic        weight_valid_in,
  input  logic        weight_bank_in,
  input  logic [7:0]  weight_group_in,    // which LOAD_COLS-wide group of columns the bus holds
  input  logic [32*LOAD_COLS-1:0] weight_in,
  output logic        weight_valid_out,
  output logic        weight_bank_out,
  output logic [7:0]  weight_group_out,
  output logic [32*LOAD_COLS-1:0] weight_out,
  // partial sum, flowing down
  input  logic [31:0] psum_in,
  output logic [31:0] psum_out
);
  import fp32_arith::*;

  localparam int GROUP = COLUMN / LOAD_COLS;
  localparam int SLOT = COLUMN % LOAD_COLS;

  logic [31:0] weight_bank [2];
  logic [31:0] weight;
  assign weight = weight_bank[moving_bank_in];

  function automatic logic signed [31:0] widen(input logic [7:0] value);
    return 32'(signed'(value));
  endfunction

  function automatic logic [31:0] int8_pair_mac(input logic [31:0] acc, input logic [15:0] m,
                                                input logic [15:0] w);
    return acc + widen(m[7:0]) * widen(w[7:0]) + widen(m[15:8]) * widen(w[15:8]);
  endfunction

  always_ff @(posedge clk) begin
    moving_valid_out <= moving_valid_in;
    moving_bank_out <= moving_bank_in;
    moving_int_out <= moving_int_in;
    moving_out <= moving_in;
    weight_valid_out <= weight_valid_in;
    weight_bank_out <= weight_bank_in;
    weight_group_out <= weight_group_in;
    weight_out <= weight_in;
    if (weight_valid_in && weight_group_in == 8'(GROUP))
      weight_bank[weight_bank_in] <= weight_in[32*SLOT +: 32];
    if (!moving_valid_in) psum_out <= psum_in;
    else if (moving_int_in) psum_out <= int8_pair_mac(psum_in, moving_in[15:0], weight[15:0]);
    else psum_out <= fp32_add(psum_in, fp32_mul(moving_in, weight));
  end
endmodule
