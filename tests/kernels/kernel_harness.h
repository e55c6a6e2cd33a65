// A one-core program around a single kernel: its operands come from device-memory tensors the
// harness fills (rounded to their dtype) and loads into SBUF, its results go back to fp32 output
// tensors; the test runs it functionally and compares with the plain C++ reference.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bert/tensor.h"
#include "builder/program_builder.h"
#include "device/kernel_context.h"
#include "device_run.h"

namespace nsim::kernels::testing {

using device::ColumnParams;
using device::DramMatrix;
using device::TileSet;

class KernelHarness {
public:
    // Weight slots `slot_widths` matmuls wide (the wider of moving and stationary free sizes).
    KernelHarness(const std::string& instance, device::Precision precision, uint32_t slot_widths = 1)
        : instance_(instance),
          spec_(core_spec(instance)),
          program_(spec_, 1),
          core_(program_.core(0)),
          dtypes_(device::dtypes_for(precision)),
          io_(core_.dma_channel("io", 0)),
          ring_(core_, 3, slot_widths * std::max(spec_.tensor.max_moving_free, spec_.tensor.max_stationary_free),
                dtypes_.matmul, 2),
          psum_(core_, 0, core_.psum_banks()),
          ctx_{core_, ring_, psum_, dtypes_} {}

    device::KernelContext& ctx() { return ctx_; }
    builder::CoreBuilder& core() { return core_; }
    const device::DtypePlan& dtypes() const { return dtypes_; }
    builder::DmaChannel& io() { return io_; }
    builder::ProgramBuilder& program() { return program_; }

    // A [rows, cols] host tensor stored as `dtype` in device memory; the values it holds after rounding.
    uint32_t dram(const std::string& name, const Tensor& t, isa::DType dtype) {
        return program_.add_tensor(name, isa::TensorRole::Weight, dtype, {t.shape[0], t.shape.size() > 1 ? t.shape[1] : 1},
                                   builder::encode_values(t.values, dtype));
    }

    // Loads a [rows, cols] tensor into a new TileSet of `dtype` (rows on partitions).
    TileSet load(const std::string& name, const Tensor& t, isa::DType dtype) {
        const uint32_t rows = uint32_t(t.shape[0]), cols = uint32_t(t.shape[1]);
        const uint32_t tensor = dram(name, t, dtype);
        TileSet set = device::allocate_tiles(core_, rows, cols, dtype, name);
        for (uint32_t i = 0; i < set.tiles.size(); ++i) {
            const auto src = builder::dram(
                builder::dram_rows(tensor, dtype, cols, i * set.tile_rows, set.rows_of(i), 0, cols));
            core_.dma(io_, builder::CoreBuilder::split_rows(set.view(i, 0, cols), src, 1));
        }
        return set;
    }

    // Linear weights W [out, in] as the kernels take them: W^T in the matmul dtype.
    DramMatrix weights(const std::string& name, const Tensor& w) {
        const Tensor t = transposed_weights(w);
        return {dram(name, t, dtypes_.matmul), uint32_t(t.shape[0]), uint32_t(t.shape[1]), dtypes_.matmul};
    }

    // The same as the BERT program stores them: W^T interleaved by k-tile, in column panels `panel`
    // wide (DramMatrix::panel_columns). `in` must be whole partition tiles.
    DramMatrix weights_in_panels(const std::string& name, const Tensor& w, uint32_t panel) {
        Tensor t = transposed_weights(w);
        DramMatrix m{0, uint32_t(t.shape[0]), uint32_t(t.shape[1]), dtypes_.matmul};
        m.interleave = device::partition_tile_rows(spec_);
        m.panel_columns = panel;
        t.values = device::lay_out(m, t.values);
        m.tensor = dram(name, t, dtypes_.matmul);
        return m;
    }

    // Per-partition fp32 columns of one vector, loaded.
    ColumnParams columns(const std::string& name, const Tensor& v) {
        const uint32_t rows = device::partition_tile_rows(spec_), n = uint32_t(v.values.size());
        const uint32_t count = (n + rows - 1) / rows;
        Tensor t({rows, count});
        for (uint32_t i = 0; i < n; ++i) t.values[(i % rows) * count + i / rows] = v.values[i];
        const TileSet set = load(name, t, isa::DType::Fp32);
        return ColumnParams{set.tiles[0], 0};
    }

    // A row broadcast over every partition, in `dtype`.
    builder::Buffer broadcast(const std::string& name, const std::vector<float>& row, isa::DType dtype) {
        const uint32_t n = uint32_t(row.size()), partitions = spec_.sbuf.partitions;
        const uint32_t tensor = dram(name, Tensor({1, n}, row), dtype);
        const builder::Buffer b = core_.sbuf(uint64_t(n) * isa::size_in_bytes(dtype), name);
        core_.dma(io_, builder::CoreBuilder::split_rows(builder::tile(b, dtype, 0, partitions, 0, n),
                                                        builder::dram(builder::dram_rows(tensor, dtype, n, 0, partitions,
                                                                                         0, n, 0)),
                                                        1));
        return b;
    }

    // Stores a TileSet to a new fp32 output tensor [rows, cols].
    void store(const std::string& name, const TileSet& set) {
        const uint32_t tensor =
            program_.add_tensor(name, isa::TensorRole::Output, isa::DType::Fp32, {set.rows, set.columns});
        for (uint32_t i = 0; i < set.tiles.size(); ++i) {
            const auto dst = builder::dram(
                builder::dram_rows(tensor, isa::DType::Fp32, set.columns, i * set.tile_rows, set.rows_of(i), 0, set.columns));
            core_.dma(io_, builder::CoreBuilder::split_rows(dst, set.view(i, 0, set.columns), 1));
        }
    }

    // Finishes the program, runs it functionally and returns it for reading the outputs.
    std::unique_ptr<DeviceRun> run() {
        auto r = std::make_unique<DeviceRun>(instance_, program_.finish());
        r->run();
        return r;
    }

private:
    static Tensor transposed_weights(const Tensor& w) {
        Tensor t({w.shape[1], w.shape[0]});
        for (size_t o = 0; o < w.shape[0]; ++o)
            for (size_t i = 0; i < w.shape[1]; ++i) t.values[i * w.shape[0] + o] = w.values[o * w.shape[1] + i];
        return t;
    }

    std::string instance_;
    config::NeuronCoreSpec spec_;
    builder::ProgramBuilder program_;
    builder::CoreBuilder& core_;
    device::DtypePlan dtypes_;
    builder::DmaChannel& io_;
    device::WeightRing ring_;
    device::PsumRing psum_;
    device::KernelContext ctx_;
};

// The values a tensor holds once stored as `dtype`.
inline Tensor rounded(Tensor t, isa::DType dtype) {
    for (float& v : t.values) v = builder::round_to(v, dtype);
    return t;
}

inline Tensor transposed(const Tensor& t) {
    Tensor out({t.shape[1], t.shape[0]});
    for (size_t r = 0; r < t.shape[0]; ++r)
        for (size_t c = 0; c < t.shape[1]; ++c) out.values[c * t.shape[0] + r] = t.values[r * t.shape[1] + c];
    return out;
}

}  // namespace nsim::kernels::testing
