// Config values outside what their field can mean are refused when the file is read, with one line
// naming the key: a shift wider than its register, more DMA queues than fit in an engine's register
// files or than a program can name, more semaphores than an instruction can name, a duration past
// what simulated time can hold, a DMA engine sustaining more than its own peak. Before, each was accepted and broke later (undefined shifts, loads
// that time out, SystemC's own two-line error, gigabytes of semaphores).
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "config_test_files.h"

namespace nsim::config::testing {
namespace {

namespace fs = std::filesystem;

class ConfigRange : public ::testing::Test {
protected:
    // The error of loading a copy of the shipped configs/ whose nc-v2.yaml has the first `from`
    // replaced by `to` (and the first `from2` by `to2`), or "no error".
    std::string error_after(const std::string& from, const std::string& to, const std::string& from2 = "",
                            const std::string& to2 = "") {
        const fs::path dir = files.dir() / "configs";
        fs::remove_all(dir);
        fs::copy(NSIM_CONFIG_DIR, dir, fs::copy_options::recursive);
        const fs::path chip = dir / "chips" / "nc-v2.yaml";
        std::stringstream text;
        text << std::ifstream(chip).rdbuf();
        std::string edited = text.str();
        const size_t at = edited.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at == std::string::npos) return "";
        edited.replace(at, from.size(), to);
        if (!from2.empty()) edited.replace(edited.find(from2), from2.size(), to2);
        std::ofstream(chip) << edited;
        try {
            (void)ConfigSet::load(dir);
            return "no error";
        } catch (const ConfigError& e) {
            return e.what();
        }
    }
    void expect_refused(const std::string& from, const std::string& to, const std::string& key,
                        const std::string& problem, const std::string& from2 = "", const std::string& to2 = "") {
        const std::string error = error_after(from, to, from2, to2);
        EXPECT_NE(error.find("key '"), std::string::npos) << error;
        EXPECT_NE(error.find(key + "': "), std::string::npos) << error;
        EXPECT_NE(error.find(problem), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }

    ConfigTestFiles files;
};

TEST_F(ConfigRange, ShippedCopyLoads) { EXPECT_EQ(error_after("semaphores: 256", "semaphores: 256"), "no error"); }

TEST_F(ConfigRange, PhaseShiftBeyondTheDescriptorWord) {
    expect_refused("phase_shift: 24 ", "phase_shift: 100000 ", "phase_shift", "outside the 32-bit len_ctrl word");
    expect_refused("phase_shift: 24 ", "phase_shift: 31 ", "phase_shift", "outside the 32-bit len_ctrl word");
}

TEST_F(ConfigRange, PhaseFieldOverlappingTheLength) {
    expect_refused("phase_shift: 24 ", "phase_shift: 8 ", "phase_shift", "overlaps the 16-bit length field");
}

TEST_F(ConfigRange, MoreSemaphoresThanAnInstructionCanName) {
    expect_refused("semaphores: 256", "semaphores: 4294967295", "semaphores", "more than the 65535");
}

TEST_F(ConfigRange, MoreDmaQueuesThanAProgramCanName) {
    for (const char* queues : {"300", "1000000"})
        expect_refused("dma_queues_per_engine: 16", std::string("dma_queues_per_engine: ") + queues,
                       "dma_queues_per_engine", "DMA queues a program can name");
}

TEST_F(ConfigRange, MoreDmaQueuesThanFitInAnEngineRegisterFile) {
    // 120 x 0x100 bytes of queue registers from 0x1000 run past the M2S file into the S2M one.
    expect_refused("dma_queues_per_engine: 16", "dma_queues_per_engine: 120", "registers",
                   "do not fit in an engine's register files", "dma_engines: 16", "dma_engines: 2");
}

TEST_F(ConfigRange, ADmaEngineSustainingMoreThanItsPeak) {
    expect_refused("dma_engine_sustained_bytes_per_s: 17GB/s", "dma_engine_sustained_bytes_per_s: 40GB/s",
                   "dma_engine_sustained_bytes_per_s", "more than dma_engine_bytes_per_s");
}

TEST_F(ConfigRange, DurationsBeyondSimulatedTime) {
    expect_refused("dma_poll_interval_s: 1us", "dma_poll_interval_s: 1e9s", "dma_poll_interval_s",
                   "longer than a day");
}

}  // namespace
}  // namespace nsim::config::testing
