#include "systolic_array_bench.h"

#include <stdexcept>

namespace nsim::rtl_test {

using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

// Contraction rows one PE row holds (sim/rtl/array_dtypes.sv rows_per_pe).
uint32_t rows_per_pe(ArrayDtype dtype) { return dtype == ArrayDtype::Int8 ? 2 : 1; }

// The 32-bit word the array reads for PE row `row` from a [contraction][free] tile at column `col`:
// the element itself, or for int8 the pair of contraction rows 2*row and 2*row+1.
uint32_t row_word(const MatmulJob& job, const std::vector<uint32_t>& tile, uint32_t free, uint32_t row,
                  uint32_t col) {
    if (col >= free) return 0;
    const auto element = [&](uint32_t k) { return k < job.contraction ? tile[k * free + col] : 0u; };
    if (job.dtype != ArrayDtype::Int8) return element(row);
    return (element(2 * row) & 0xffu) | (element(2 * row + 1) & 0xffu) << 8;
}

// A run that has produced no result for this many cycles is stuck, not slow.
constexpr uint64_t kStallCycles = 100000;
// Cycles simulated between checks for progress.
constexpr uint64_t kStepCycles = 64;

}  // namespace

SystolicArrayBench::SystolicArrayBench(sc_core::sc_module_name name)
    : sc_module(name), clk_("clk", sc_time(1, SC_NS)), dut_(std::make_unique<Vsystolic_array>("dut")) {
    dut_->clk(clk_);
    dut_->rst(rst_);
    dut_->cfg_min_interval(cfg_min_interval_);
    dut_->cfg_cycles_per_column(cfg_cycles_per_column_);
    dut_->geometry(geometry_);
    dut_->cmd_valid(cmd_valid_);
    dut_->cmd_ready(cmd_ready_);
    dut_->cmd_contraction(cmd_contraction_);
    dut_->cmd_stationary_free(cmd_stationary_free_);
    dut_->cmd_moving_free(cmd_moving_free_);
    dut_->cmd_dtype(cmd_dtype_);
    dut_->cmd_reuse_stationary(cmd_reuse_);
    dut_->st_req_valid(st_req_valid_);
    dut_->st_req_tag(st_req_tag_);
    dut_->st_req_group(st_req_group_);
    dut_->st_data(st_data_);
    dut_->mv_req_valid(mv_req_valid_);
    dut_->mv_req_tag(mv_req_tag_);
    dut_->mv_req_column(mv_req_column_);
    dut_->mv_data(mv_data_);
    dut_->out_valid(out_valid_);
    dut_->out_last(out_last_);
    dut_->out_tag(out_tag_);
    dut_->out_column(out_column_);
    dut_->out_data(out_data_);

    SC_METHOD(drive_command);
    sensitive << next_command_ << rst_;
    SC_METHOD(drive_reads);
    sensitive << st_req_valid_ << st_req_tag_ << st_req_group_ << mv_req_valid_ << mv_req_tag_
              << mv_req_column_;
    SC_METHOD(on_clock);
    sensitive << clk_.posedge_event();
    dont_initialize();
}

std::vector<uint32_t> SystolicArrayBench::geometry() const {
    const uint32_t packed = geometry_.read();
    return {packed & 0xffu, (packed >> 8) & 0xffu, (packed >> 16) & 0xffu};
}

void SystolicArrayBench::drive_command() {
    const uint32_t index = next_command_.read();
    const bool any = jobs_ != nullptr && !rst_.read() && index < jobs_->size();
    cmd_valid_.write(any);
    if (!any) return;
    const MatmulJob& job = (*jobs_)[index];
    cmd_contraction_.write(job.contraction);
    cmd_stationary_free_.write(job.stationary_free);
    cmd_moving_free_.write(job.moving_free);
    cmd_dtype_.write(uint32_t(job.dtype));
    cmd_reuse_.write(job.reuse_stationary);
}

void SystolicArrayBench::drive_reads() {
    if (jobs_ == nullptr) return;
    if (st_req_valid_.read()) {
        const MatmulJob& job = (*jobs_).at(st_req_tag_.read());
        sc_dt::sc_bv<32 * kRows * kLoadCols> words;
        for (uint32_t row = 0; row < kRows; ++row)
            for (uint32_t slot = 0; slot < kLoadCols; ++slot)
                words.set_word(row * kLoadCols + slot,
                               row_word(job, job.stationary, job.stationary_free, row,
                                        st_req_group_.read() * kLoadCols + slot));
        st_data_.write(words);
    }
    if (mv_req_valid_.read()) {
        const MatmulJob& job = (*jobs_).at(mv_req_tag_.read());
        sc_dt::sc_bv<32 * kRows> words;
        for (uint32_t row = 0; row < kRows; ++row)
            words.set_word(row, row_word(job, job.moving, job.moving_free, row, mv_req_column_.read()));
        mv_data_.write(words);
    }
}

// Samples what the array shows in the cycle that this edge ends.
void SystolicArrayBench::on_clock() {
    if (!counting_) return;
    if (cmd_valid_.read() && cmd_ready_.read()) next_command_.write(next_command_.read() + 1);
    if (results_seen_ == 0 && first_issue_cycle_ == UINT64_MAX && (st_req_valid_.read() || mv_req_valid_.read()))
        first_issue_cycle_ = cycle_;
    const uint32_t valid = out_valid_.read();
    for (uint32_t col = 0; col < kCols; ++col) {
        if (!(valid >> col & 1u)) continue;
        const uint32_t tag = out_tag_.read().range(8 * col + 7, 8 * col).to_uint();
        const uint32_t n = out_column_.read().range(16 * col + 15, 16 * col).to_uint();
        const MatmulJob& job = jobs_->at(tag);
        result_.outputs.at(tag).at(col * job.moving_free + n) = out_data_.read().get_word(col);
        if (++results_seen_ == results_expected_) result_.cycles = cycle_ - first_issue_cycle_ + 1;
    }
    ++cycle_;
}

BenchResult SystolicArrayBench::run(const ArrayConfig& config, const std::vector<MatmulJob>& jobs) {
    jobs_ = &jobs;
    result_ = BenchResult{};
    results_expected_ = 0;
    for (const MatmulJob& job : jobs) {
        result_.outputs.emplace_back(uint64_t(job.stationary_free) * job.moving_free, 0xdeadbeefu);
        results_expected_ += uint64_t(job.stationary_free) * job.moving_free;
        if (job.contraction > kRows * rows_per_pe(job.dtype) || job.stationary_free > kCols)
            throw std::invalid_argument("job does not fit the array");
    }
    cfg_min_interval_.write(config.min_interval);
    cfg_cycles_per_column_.write(config.cycles_per_column);
    counting_ = false;
    rst_.write(true);
    next_command_.write(0);
    sc_core::sc_start(sc_time(3, SC_NS));
    rst_.write(false);
    cycle_ = 0;
    first_issue_cycle_ = UINT64_MAX;
    results_seen_ = 0;
    counting_ = true;
    uint64_t seen_before = 0, idle_cycles = 0;
    while (results_seen_ < results_expected_) {
        sc_core::sc_start(sc_time(double(kStepCycles), SC_NS));
        idle_cycles = results_seen_ == seen_before ? idle_cycles + kStepCycles : 0;
        if (idle_cycles >= kStallCycles) throw std::runtime_error("the array stopped producing results");
        seen_before = results_seen_;
    }
    counting_ = false;
    jobs_ = nullptr;
    return result_;
}

}  // namespace nsim::rtl_test
