// A weight-stationary systolic array like the NeuronCore's TensorE, ROWS x COLS PEs, with its
// sequencer. Row k of the array takes contraction row k (rows 2k, 2k+1 for int8); column m holds
// stationary column m and produces output partition m. Dataflow per cycle:
//   issue cycle t: the sequencer names a stationary group and/or a moving column, the testbench
//                  (the SBUF) answers in the same cycle with the raw elements of every row;
//   row k's inputs are delayed k cycles (skew), then move right one PE per cycle; the partial sum
//   of column m moves down one PE per cycle, so moving column n meets PE (k, m) in cycle t + k + m;
//   the bottom row's sum passes one more register (the PSUM write) and is visible on out_* in
//   cycle t + (ROWS - 1) + m + 1, i.e. 2 cycles outside the PE grid (configs: pipeline_io_cycles).
module systolic_array #(
  parameter int ROWS = 16,
  parameter int COLS = 16,
  parameter int LOAD_COLS = 4   // configs: stationary_load_columns_per_cycle
) (
  input  logic        clk,
  input  logic        rst,
  input  logic [15:0] cfg_min_interval,       // configs: engines.tensor.min_instruction_cycles
  input  logic [15:0] cfg_cycles_per_column,  // configs: moving_cycles_per_column, 4 bits per dtype code
  output logic [23:0] geometry,               // {LOAD_COLS, COLS, ROWS}, 8 bits each
  // commands
  input  logic        cmd_valid,
  output logic        cmd_ready,
  input  logic [15:0] cmd_contraction,
  input  logic [15:0] cmd_stationary_free,
  input  logic [15:0] cmd_moving_free,
  input  logic [1:0]  cmd_dtype,
  input  logic        cmd_reuse_stationary,
  // stationary read: group g = stationary columns [g*LOAD_COLS, (g+1)*LOAD_COLS) of every row
  output logic        st_req_valid,
  output logic [7:0]  st_req_tag,
  output logic [7:0]  st_req_group,
  input  logic [32*ROWS*LOAD_COLS-1:0] st_data,   // row k slot j at [32*(k*LOAD_COLS + j)]
  // moving read: one column of every row
  output logic        mv_req_valid,
  output logic [7:0]  mv_req_tag,
  output logic [15:0] mv_req_column,
  input  logic [32*ROWS-1:0] mv_data,             // row k at [32*k]
  // results, one per column: PSUM partition m, element out_column of matmul out_tag
  output logic [COLS-1:0]    out_valid,
  output logic [COLS-1:0]    out_last,
  output logic [8*COLS-1:0]  out_tag,
  output logic [16*COLS-1:0] out_column,
  output logic [32*COLS-1:0] out_data
);
  import array_dtypes::*;

  assign geometry = {8'(LOAD_COLS), 8'(COLS), 8'(ROWS)};

  logic load_valid, load_bank, stream_valid, stream_last, stream_bank;
  logic [7:0] load_tag, load_group, stream_tag;
  logic [1:0] load_dtype, stream_dtype;
  logic [15:0] stream_column, stream_contraction, stream_stationary_free;

  matmul_sequencer #(.LOAD_COLS(LOAD_COLS)) sequencer (
    .clk, .rst, .cfg_min_interval, .cfg_cycles_per_column,
    .cmd_valid, .cmd_ready, .cmd_contraction, .cmd_stationary_free, .cmd_moving_free, .cmd_dtype,
    .cmd_reuse_stationary,
    .load_valid, .load_tag, .load_group, .load_bank, .load_dtype,
    .stream_valid, .stream_tag, .stream_column, .stream_last, .stream_bank, .stream_dtype,
    .stream_contraction, .stream_stationary_free);

  assign st_req_valid = load_valid;
  assign st_req_tag = load_tag;
  assign st_req_group = load_group;
  assign mv_req_valid = stream_valid;
  assign mv_req_tag = stream_tag;
  assign mv_req_column = stream_column;

  // What accompanies a moving column down each output column: which result it is.
  typedef struct packed {
    logic        valid;
    logic        last;
    logic [15:0] stationary_free;
    logic [7:0]  tag;
    logic [15:0] column;
  } result_meta_t;

  // PE grid wiring: [row][col] inputs; index COLS / ROWS is the outgoing edge.
  logic              mv_valid [ROWS][COLS+1];
  logic              mv_bank  [ROWS][COLS+1];
  logic              mv_int   [ROWS][COLS+1];
  logic [31:0]       mv_word  [ROWS][COLS+1];
  logic              w_valid  [ROWS][COLS+1];
  logic              w_bank   [ROWS][COLS+1];
  logic [7:0]        w_group  [ROWS][COLS+1];
  logic [32*LOAD_COLS-1:0] w_words [ROWS][COLS+1];
  logic [31:0]       psum     [ROWS+1][COLS];
  result_meta_t      meta_right [COLS+1];   // travels along row 0 with its moving data
  result_meta_t      meta_down  [ROWS][COLS]; // travels down with the partial sum

  result_meta_t issued_meta;
  assign issued_meta = '{valid: stream_valid, last: stream_last, stationary_free: stream_stationary_free,
                         tag: stream_tag, column: stream_column};
  assign meta_right[0] = issued_meta;

  for (genvar k = 0; k < ROWS; k++) begin : row
    // The values entering row k this cycle, then k skew registers.
    logic              skew_mv_valid [k+1];
    logic              skew_mv_bank  [k+1];
    logic              skew_mv_int   [k+1];
    logic [31:0]       skew_mv_word  [k+1];
    logic              skew_w_valid  [k+1];
    logic              skew_w_bank   [k+1];
    logic [7:0]        skew_w_group  [k+1];
    logic [32*LOAD_COLS-1:0] skew_w_words [k+1];

    always_comb begin
      skew_mv_valid[0] = stream_valid && 32'(k) * 32'(rows_per_pe(stream_dtype)) < 32'(stream_contraction);
      skew_mv_bank[0] = stream_bank;
      skew_mv_int[0] = stream_dtype == INT8;
      skew_mv_word[0] = to_array_word(stream_dtype, mv_data[32*k +: 32]);
      skew_w_valid[0] = load_valid;
      skew_w_bank[0] = load_bank;
      skew_w_group[0] = load_group;
      for (int j = 0; j < LOAD_COLS; j++)
        skew_w_words[0][32*j +: 32] = to_array_word(load_dtype, st_data[32*(k*LOAD_COLS + j) +: 32]);
    end
    for (genvar d = 1; d <= k; d++) begin : skew
      always_ff @(posedge clk) begin
        skew_mv_valid[d] <= rst ? 1'b0 : skew_mv_valid[d-1];
        skew_mv_bank[d] <= skew_mv_bank[d-1];
        skew_mv_int[d] <= skew_mv_int[d-1];
        skew_mv_word[d] <= skew_mv_word[d-1];
        skew_w_valid[d] <= rst ? 1'b0 : skew_w_valid[d-1];
        skew_w_bank[d] <= skew_w_bank[d-1];
        skew_w_group[d] <= skew_w_group[d-1];
        skew_w_words[d] <= skew_w_words[d-1];
      end
    end
    assign mv_valid[k][0] = skew_mv_valid[k];
    assign mv_bank[k][0] = skew_mv_bank[k];
    assign mv_int[k][0] = skew_mv_int[k];
    assign mv_word[k][0] = skew_mv_word[k];
    assign w_valid[k][0] = skew_w_valid[k];
    assign w_bank[k][0] = skew_w_bank[k];
    assign w_group[k][0] = skew_w_group[k];
    assign w_words[k][0] = skew_w_words[k];

    for (genvar m = 0; m < COLS; m++) begin : col
      processing_element #(.COLUMN(m), .LOAD_COLS(LOAD_COLS)) pe (
        .clk,
        .moving_valid_in(mv_valid[k][m]), .moving_bank_in(mv_bank[k][m]),
        .moving_int_in(mv_int[k][m]), .moving_in(mv_word[k][m]),
        .moving_valid_out(mv_valid[k][m+1]), .moving_bank_out(mv_bank[k][m+1]),
        .moving_int_out(mv_int[k][m+1]), .moving_out(mv_word[k][m+1]),
        .weight_valid_in(w_valid[k][m]), .weight_bank_in(w_bank[k][m]),
        .weight_group_in(w_group[k][m]), .weight_in(w_words[k][m]),
        .weight_valid_out(w_valid[k][m+1]), .weight_bank_out(w_bank[k][m+1]),
        .weight_group_out(w_group[k][m+1]), .weight_out(w_words[k][m+1]),
        .psum_in(psum[k][m]), .psum_out(psum[k+1][m]));
    end
  end

  for (genvar m = 0; m < COLS; m++) begin : column
    assign psum[0][m] = 32'd0;  // +0.0f and int 0: each matmul's sum starts from zero
    always_ff @(posedge clk) begin
      meta_right[m+1] <= rst ? '0 : meta_right[m];
      meta_down[0][m] <= rst ? '0 : meta_right[m];
    end
    for (genvar k = 1; k < ROWS; k++) begin : down
      always_ff @(posedge clk) meta_down[k][m] <= rst ? '0 : meta_down[k-1][m];
    end
    // The PSUM write stage; columns beyond the matmul's stationary free size hold no result.
    always_ff @(posedge clk) begin
      out_valid[m] <= !rst && meta_down[ROWS-1][m].valid && 16'(m) < meta_down[ROWS-1][m].stationary_free;
      out_last[m] <= meta_down[ROWS-1][m].last;
      out_tag[8*m +: 8] <= meta_down[ROWS-1][m].tag;
      out_column[16*m +: 16] <= meta_down[ROWS-1][m].column;
      out_data[32*m +: 32] <= psum[ROWS][m];
    end
  end
endmodule
