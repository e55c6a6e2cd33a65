// A SystemC testbench around the verilated systolic array (sim/rtl): it plays the SBUF (answers the
// array's stationary and moving reads from the tiles of the current job), feeds the commands,
// collects every result the array writes to PSUM and counts clock cycles from the first read the
// array issues to the cycle its last result is written.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "Vsystolic_array.h"

namespace nsim::rtl_test {

// The array's dtype codes (sim/rtl/array_dtypes.sv).
enum class ArrayDtype : uint32_t { Int8 = 0, Bf16 = 1, Fp16 = 2, Fp32 = 3 };

// One matmul: out[m][n] = sum_k stationary[k][m] * moving[k][n], inputs as raw element bits.
struct MatmulJob {
    uint32_t contraction = 0, stationary_free = 0, moving_free = 0;
    ArrayDtype dtype = ArrayDtype::Bf16;
    bool reuse_stationary = false;
    std::vector<uint32_t> stationary;  // [contraction][stationary_free]
    std::vector<uint32_t> moving;      // [contraction][moving_free]
};

struct BenchResult {
    uint64_t cycles = 0;                         // first read issued .. last result written, inclusive
    std::vector<std::vector<uint32_t>> outputs;  // per job, [stationary_free][moving_free] raw 32-bit
};

// Per-dtype cycles per moving column, 4 bits each at 4 * code (the RTL's cfg_cycles_per_column).
struct ArrayConfig {
    uint32_t min_interval = 0;
    uint32_t cycles_per_column = 0;
};

class SystolicArrayBench : public sc_core::sc_module {
public:
    static constexpr uint32_t kRows = NSIM_RTL_ROWS;
    static constexpr uint32_t kCols = NSIM_RTL_COLS;
    static constexpr uint32_t kLoadCols = NSIM_RTL_LOAD_COLS;

    SC_HAS_PROCESS(SystolicArrayBench);
    explicit SystolicArrayBench(sc_core::sc_module_name name);

    // Resets the array, runs the jobs back to back and returns what it computed and how long it took.
    // Throws std::runtime_error if the array stops producing results.
    BenchResult run(const ArrayConfig& config, const std::vector<MatmulJob>& jobs);
    // {rows, cols, load columns} as the verilated array reports them.
    std::vector<uint32_t> geometry() const;

private:
    void drive_command();
    void drive_reads();
    void on_clock();

    sc_core::sc_clock clk_;
    sc_core::sc_signal<bool> rst_, cmd_valid_, cmd_ready_, cmd_reuse_, st_req_valid_, mv_req_valid_;
    sc_core::sc_signal<uint32_t> cfg_min_interval_, cfg_cycles_per_column_, geometry_, cmd_contraction_,
        cmd_stationary_free_, cmd_moving_free_, cmd_dtype_, st_req_tag_, st_req_group_, mv_req_tag_,
        mv_req_column_, out_valid_, out_last_;
    sc_core::sc_signal<sc_dt::sc_bv<32 * kRows * kLoadCols>> st_data_;
    sc_core::sc_signal<sc_dt::sc_bv<32 * kRows>> mv_data_;
    sc_core::sc_signal<sc_dt::sc_bv<8 * kCols>> out_tag_;
    sc_core::sc_signal<sc_dt::sc_bv<16 * kCols>> out_column_;
    sc_core::sc_signal<sc_dt::sc_bv<32 * kCols>> out_data_;
    sc_core::sc_signal<uint32_t> next_command_;
    std::unique_ptr<Vsystolic_array> dut_;

    const std::vector<MatmulJob>* jobs_ = nullptr;
    BenchResult result_;
    bool counting_ = false;
    uint64_t cycle_ = 0, first_issue_cycle_ = 0, results_expected_ = 0, results_seen_ = 0;
};

}  // namespace nsim::rtl_test
