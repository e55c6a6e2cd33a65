// The tensor engine's sequencer for the systolic array: takes matmul commands in order and drives
// the array's two input ports each cycle - one stationary column group (LoadStationary) and one
// moving column (MultiplyMoving). Timing rules, the ones sim/core/tensor_engine_timing.cpp counts:
//  - a LoadStationary issues ceil(M / LOAD_COLS) groups, one per cycle, into the weight bank the
//    array is not streaming from; it starts when the previous matmul starts streaming (background
//    load) or at once on an idle engine; a command that reuses the stationary tile loads nothing;
//  - a matmul streams for cycles_per_column * max(N, min(min_interval, M)) cycles, once its load has
//    issued and the previous stream has ended; each moving column enters in the last cycle of its
//    cycles_per_column slot, and the cycles after the N-th column are bubbles.
module matmul_sequencer #(
  parameter int LOAD_COLS = 4
) (
  input  logic        clk,
  input  logic        rst,
  input  logic [15:0] cfg_min_interval,
  input  logic [15:0] cfg_cycles_per_column,   // 4 bits per array_dtypes code
  // commands
  input  logic        cmd_valid,
  output logic        cmd_ready,
  input  logic [15:0] cmd_contraction,
  input  logic [15:0] cmd_stationary_free,
  input  logic [15:0] cmd_moving_free,
  input  logic [1:0]  cmd_dtype,
  input  logic        cmd_reuse_stationary,
  // this cycle's stationary group
  output logic        load_valid,
  output logic [7:0]  load_tag,
  output logic [7:0]  load_group,
  output logic        load_bank,
  output logic [1:0]  load_dtype,
  // this cycle's moving column
  output logic        stream_valid,
  output logic [7:0]  stream_tag,
  output logic [15:0] stream_column,
  output logic        stream_last,
  output logic        stream_bank,
  output logic [1:0]  stream_dtype,
  output logic [15:0] stream_contraction,
  output logic [15:0] stream_stationary_free
);
  typedef struct packed {
    logic [15:0] contraction;
    logic [15:0] stationary_free;
    logic [15:0] moving_free;
    logic [1:0]  dtype;
    logic        bank;
    logic [7:0]  tag;
  } matmul_t;

  function automatic logic [3:0] cycles_per_column(input logic [1:0] dtype);
    return cfg_cycles_per_column[4*dtype +: 4];
  endfunction

  // cycles_per_column * max(N, min(min_interval, M))
  function automatic logic [31:0] stream_cycles(input logic [15:0] stationary_free,
                                                input logic [15:0] moving_free, input logic [1:0] dtype);
    logic [15:0] floor_columns, columns;
    floor_columns = cfg_min_interval < stationary_free ? cfg_min_interval : stationary_free;
    columns = moving_free > floor_columns ? moving_free : floor_columns;
    return 32'(columns) * 32'(cycles_per_column(dtype));
  endfunction

  // waiting to stream: fetched, its stationary tile loading or loaded
  logic pending_valid, pending_loaded;
  matmul_t pending;
  // streaming
  logic stream_active;
  matmul_t streaming;
  logic [31:0] stream_slot, stream_length;
  logic [3:0] stream_sub;
  logic [15:0] stream_col;
  // loading
  logic load_active;
  logic [7:0] load_groups;
  logic last_bank;
  logic [7:0] next_tag;

  logic stream_ending, load_finishing, start_stream, pending_free, fetch;
  matmul_t fetched;

  always_comb begin
    stream_ending = stream_active && stream_slot == stream_length - 1;
    load_finishing = load_active && load_group == load_groups - 1;
    start_stream = (!stream_active || stream_ending) && pending_valid && (pending_loaded || load_finishing);
    pending_free = !pending_valid || start_stream;
    cmd_ready = pending_free;
    fetch = cmd_valid && pending_free;
    fetched.contraction = cmd_contraction;
    fetched.stationary_free = cmd_stationary_free;
    fetched.moving_free = cmd_moving_free;
    fetched.dtype = cmd_dtype;
    fetched.bank = cmd_reuse_stationary ? last_bank : !last_bank;
    fetched.tag = next_tag;

    load_valid = load_active;
    load_tag = pending.tag;
    load_bank = pending.bank;
    load_dtype = pending.dtype;

    stream_valid = stream_active && stream_sub == cycles_per_column(streaming.dtype) - 1 &&
                   stream_col < streaming.moving_free;
    stream_tag = streaming.tag;
    stream_column = stream_col;
    stream_last = stream_col == streaming.moving_free - 1;
    stream_bank = streaming.bank;
    stream_dtype = streaming.dtype;
    stream_contraction = streaming.contraction;
    stream_stationary_free = streaming.stationary_free;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      pending_valid <= 1'b0;
      pending_loaded <= 1'b0;
      stream_active <= 1'b0;
      load_active <= 1'b0;
      load_group <= 8'd0;
      load_groups <= 8'd0;
      last_bank <= 1'b1;
      next_tag <= 8'd0;
    end else begin
      if (stream_active) begin
        stream_slot <= stream_slot + 1;
        if (stream_sub == cycles_per_column(streaming.dtype) - 1) begin
          stream_sub <= 4'd0;
          stream_col <= stream_col + 1;
        end else stream_sub <= stream_sub + 1;
        if (stream_ending) stream_active <= 1'b0;
      end
      if (load_active) begin
        load_group <= load_group + 1;
        if (load_finishing) begin
          load_active <= 1'b0;
          pending_loaded <= 1'b1;
        end
      end
      if (start_stream) begin
        stream_active <= 1'b1;
        streaming <= pending;
        stream_slot <= 32'd0;
        stream_length <= stream_cycles(pending.stationary_free, pending.moving_free, pending.dtype);
        stream_sub <= 4'd0;
        stream_col <= 16'd0;
        pending_valid <= 1'b0;
      end
      if (fetch) begin
        pending_valid <= 1'b1;
        pending <= fetched;
        last_bank <= fetched.bank;
        next_tag <= next_tag + 1;
        pending_loaded <= cmd_reuse_stationary;
        load_active <= !cmd_reuse_stationary;
        load_group <= 8'd0;
        load_groups <= 8'((32'(cmd_stationary_free) + LOAD_COLS - 1) / LOAD_COLS);
      end
    end
  end
endmodule
