// engine-throughput: how fast the engines simulate, in host time. Builds a BERT-large-shaped
// instruction stream (24 encoder layers at sequence 128, batch 1: the QKV, output and feed-forward
// GEMMs tiled for the tensor engine with their weights streamed by DMA, per-head attention, GELU,
// layernorms and PSUM evacuations), runs it timing-only on one NeuronCore, and prints instructions
// per host second and simulated cycles per host second. A benchmark, not a test: it asserts nothing.
//
//   engine-throughput [--instance trn1.2xlarge] [--layers 24] [--iterations 5]
#include <chrono>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <systemc>

#include "common/tool_main.h"
#include "config/config_set.h"
#include "core/engine_scheduler.h"
#include "core/program_placement.h"
#include "core/run_report.h"
#include "isa/text_format.h"

namespace {

// BERT-large: hidden 1024, 16 heads of 64, feed-forward 4096; sequence 128.
constexpr unsigned kHidden = 1024, kHeads = 16, kHeadDim = 64, kFeedForward = 4096, kTokens = 128;
constexpr unsigned kTile = 128;      // contraction and stationary tile
constexpr unsigned kDmaPieces = 4;   // each weight block is split over this many DMA queues

class BertShapedProgram {
public:
    explicit BertShapedProgram(unsigned generation) {
        text_ = fmt::format(".target v{}\n.cores 1\n.meta model \"bert-large-shaped timing benchmark\"\n", generation);
        text_ += fmt::format(".tensor W weight bf16 [{}, {}] device 0x0\n", kFeedForward, kFeedForward);
        for (const char* s : {"w_ready0", "w_ready1", "step_done0", "step_done1", "acc_done", "evacuated", "scores",
                              "probs", "normed", "context"})
            text_ += fmt::format(".sem {} {}\n", s, semaphore_++);
        text_ += ".core 0\n";
    }

    void layer() {
        gemm(kHidden, 3 * kHidden, false);  // Q, K, V projections
        attention();
        gemm(kHidden, kHidden, false);      // attention output projection
        layernorm();
        gemm(kHidden, kFeedForward, true);  // feed-forward up, GELU
        gemm(kFeedForward, kHidden, false); // feed-forward down
        layernorm();
    }

    std::string text() const { return text_; }

private:
    void line(const std::string& s) { text_ += s + "\n"; }

    // out^T[features, tokens] = W^T x^T: each k-step loads a [128, features] block of W (two SBUF
    // slots, double buffered), every output tile accumulates in its own 512-byte PSUM slice, and the
    // scalar engine evacuates each finished tile (applying GELU when asked).
    void gemm(unsigned in_features, unsigned out_features, bool gelu) {
        const unsigned k_tiles = in_features / kTile, out_tiles = out_features / kTile;
        const unsigned rows = kTile / kDmaPieces;
        if (tiles_evacuated_ > 0) line(fmt::format("pe nop wait=evacuated>={}", tiles_evacuated_));
        for (unsigned k = 0; k < k_tiles; ++k, ++step_) {
            const unsigned slot = step_ % 2, use = step_ / 2;
            const unsigned w_offset = 16384 + slot * 8192;
            for (unsigned p = 0; p < kDmaPieces; ++p) {
                const std::string wait = use ? fmt::format(", wait=step_done{}>={}", slot, use) : "";
                line(fmt::format("dma{} dma_copy dst=bf16 sbuf[{}:{}] +{} [[1,{}]], src=bf16 dram:W +{} [[{},{}],[1,{}]]{}, "
                                 "signal=w_ready{}",
                                 (slot * kDmaPieces + p) % 16, p * rows, (p + 1) * rows, w_offset, out_features,
                                 uint64_t(k * kTile + p * rows) * kFeedForward * 2, kFeedForward, rows, out_features,
                                 wait, slot));
            }
            line(fmt::format("pe nop wait=w_ready{}>={}", slot, kDmaPieces * (use + 1)));
            for (unsigned j = 0; j < out_tiles; ++j) {
                const std::string signal = k + 1 == k_tiles ? ", signal=acc_done" : "";
                line(fmt::format("pe matmul dst=fp32 psum[0:128] +{} [[1,{}]], stationary=bf16 sbuf[0:128] +{} [[1,128]], "
                                 "moving=bf16 sbuf[0:128] +{} [[1,{}]], acc={}{}",
                                 j * kTokens * 4, kTokens, w_offset + j * kTile * 2, (k % 32) * kTokens * 2, kTokens,
                                 k == 0 ? "overwrite" : "accumulate", signal));
            }
            line(fmt::format("pe nop signal=step_done{}", slot));
        }
        for (unsigned j = 0; j < out_tiles; ++j) {
            ++tiles_accumulated_;
            line(fmt::format("act activation dst=bf16 sbuf[0:128] +{} [[1,{}]], src=fp32 psum[0:128] +{} [[1,{}]], "
                             "func={}, scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=acc_done>={}, "
                             "signal=evacuated",
                             (j % 32) * kTokens * 2, kTokens, j * kTokens * 4, kTokens, gelu ? "gelu" : "identity",
                             tiles_accumulated_));
            ++tiles_evacuated_;
        }
    }

    // Per head: scores = Q K^T on PE, softmax on ACT (exp with a row sum) and DVE (scale by the
    // reciprocal sum), a PE transpose of the probabilities and the context matmul.
    void attention() {
        line(fmt::format("pe nop wait=evacuated>={}", tiles_evacuated_));
        for (unsigned h = 0; h < kHeads; ++h) {
            ++heads_;
            line(fmt::format("pe matmul dst=fp32 psum[0:128] +0 [[1,{}]], stationary=bf16 sbuf[0:{}] +{} [[1,128]], "
                             "moving=bf16 sbuf[0:{}] +{} [[1,{}]], acc=overwrite, signal=scores",
                             kTokens, kHeadDim, h * 256, kHeadDim, 8192 + h * 256, kTokens));
            line(fmt::format("act activation dst=fp32 sbuf[0:128] +40960 [[1,{}]], src=fp32 psum[0:128] +0 [[1,{}]], "
                             "func=exp, scale=0.125, bias=none, reduce_op=add, reduce_dst=fp32 sbuf[0:128] +45056 [[1,1]], "
                             "wait=scores>={}",
                             kTokens, kTokens, heads_));
            line(fmt::format("dve tensor_partition_scalar dst=bf16 sbuf[0:128] +46080 [[1,{}]], src=fp32 sbuf[0:128] +40960 "
                             "[[1,{}]], op0=divide, scalar0=fp32 sbuf[0:128] +45056 [[1,1]], op1=bypass, scalar1=none, "
                             "wait=scores>={}, signal=probs",
                             kTokens, kTokens, heads_));
            line(fmt::format("pe transpose dst=fp32 psum[0:128] +2048 [[1,128]], src=bf16 sbuf[0:128] +46080 [[1,128]], "
                             "wait=probs>={}", heads_));
            line(fmt::format("pe matmul dst=fp32 psum[0:{}] +4096 [[1,{}]], stationary=bf16 sbuf[0:128] +{} [[1,{}]], "
                             "moving=bf16 sbuf[0:128] +46080 [[1,{}]], acc=overwrite, signal=context",
                             kHeadDim, kTokens, 12288 + h * 128, kHeadDim, kTokens));
        }
    }

    void layernorm() {
        ++layernorms_;
        line(fmt::format("dve bn_stats dst=fp32 sbuf[0:128] +48000 [[1,6]], src=bf16 sbuf[0:128] +0 [[1,{}]], wait=evacuated>={}",
                         kHidden, tiles_evacuated_));
        line("dve bn_aggr dst=fp32 sbuf[0:128] +48100 [[1,2]], src=fp32 sbuf[0:128] +48000 [[1,6]]");
        line(fmt::format("dve tensor_partition_scalar dst=bf16 sbuf[0:128] +0 [[1,{}]], src=bf16 sbuf[0:128] +0 [[1,{}]], "
                         "op0=subtract, scalar0=fp32 sbuf[0:128] +48100 [[1,1]], op1=multiply, scalar1=fp32 sbuf[0:128] "
                         "+48104 [[1,1]], signal=normed",
                         kHidden, kHidden));
        line(fmt::format("pe nop wait=normed>={}", layernorms_));
    }

    std::string text_;
    unsigned semaphore_ = 0, step_ = 0, tiles_accumulated_ = 0, tiles_evacuated_ = 0, heads_ = 0, layernorms_ = 0;
};

}  // namespace

int sc_main(int argc, char** argv) {
    CLI::App app{"Simulate a BERT-large-shaped instruction stream timing-only and report host-time speed",
                 "engine-throughput"};
    std::string instance = "trn1.2xlarge";
    unsigned layers = 24, iterations = 5;
    app.add_option("--instance", instance, "Instance to simulate (one NeuronCore of it is used)");
    app.add_option("--layers", layers, "Encoder layers")->check(nsim::tools::in_range(1u, 1000u));
    app.add_option("--iterations", iterations, "Times the program runs back to back")->check(nsim::tools::in_range(1u, 100000u));
    return nsim::tools::run_tool(app, argc, argv, [&] {
        const auto configs = nsim::config::ConfigSet::load(nsim::config::ConfigSet::default_dir());
        const nsim::config::HostSpec spec = configs.host(instance);
        BertShapedProgram builder(nsim::sim::core::generation_of(spec.chip));
        for (unsigned l = 0; l < layers; ++l) builder.layer();
        const auto build_start = std::chrono::steady_clock::now();
        const nsim::isa::Container program = nsim::isa::assemble(builder.text(), "bert-shaped.s").container;
        const double assemble_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - build_start).count();

        nsim::sim::Platform platform("machine", spec);
        nsim::sim::Platform::finish_elaboration();
        const auto placement = nsim::sim::core::place_program(program, platform);
        nsim::sim::core::ExecutionOptions options;
        options.iterations = iterations;
        nsim::sim::core::EngineScheduler engines(platform, program, placement, options);
        const auto stats = engines.run();

        double pe_busy = 0;
        for (const auto& q : stats.queues)
            if (q.name == "core0.pe") pe_busy = nsim::sim::core::busy_percent(q, stats);
        std::cout << fmt::format("program: {} layers, {} instructions per iteration (assembled in {:.3f} s)\n", layers,
                                 stats.instructions / iterations, assemble_s);
        std::cout << fmt::format("simulated: {} iterations, {:.3f} ms each, {} cycles in all; tensor engine busy {:.1f}%\n",
                                 iterations, stats.time_s / iterations * 1e3, stats.cycles, pe_busy);
        std::cout << fmt::format("host time: {:.3f} s\n", stats.host_seconds);
        std::cout << fmt::format("instructions per host second: {:.3f} M\n",
                                 double(stats.instructions) / stats.host_seconds / 1e6);
        std::cout << fmt::format("simulated cycles per host second: {:.1f} M\n", double(stats.cycles) / stats.host_seconds / 1e6);
        return 0;
    });
}
