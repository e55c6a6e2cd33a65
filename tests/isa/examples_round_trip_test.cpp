// assemble -> write -> read -> disassemble -> assemble -> write is byte-identical for every example.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "isa/container_io.h"
#include "isa/text_format.h"

namespace nsim::isa {
namespace {

std::vector<std::filesystem::path> examples() {
    std::vector<std::filesystem::path> paths;
    for (const auto& e : std::filesystem::directory_iterator(NSIM_ISA_EXAMPLES_DIR))
        if (e.path().extension() == ".s") paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    return paths;
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(Examples, ThereAreExamplesIncludingTheDoubleBufferedGemm) {
    const auto paths = examples();
    EXPECT_GE(paths.size(), 3u);
    EXPECT_NE(std::find(paths.begin(), paths.end(),
                        std::filesystem::path(NSIM_ISA_EXAMPLES_DIR) / "tiled_gemm_double_buffered.s"),
              paths.end());
}

TEST(Examples, AssembleDisassembleAssembleIsByteIdentical) {
    for (const auto& path : examples()) {
        SCOPED_TRACE(path.string());
        const Assembly first = assemble(slurp(path), path.string());
        const auto bytes = write_container(first.container);
        const std::string text = disassemble(read_container(bytes));
        const auto again = write_container(assemble(text, "disassembled.s").container);
        EXPECT_EQ(again, bytes);
        EXPECT_EQ(disassemble(read_container(again)), text);
    }
}

TEST(Examples, GemmUsesTwoBuffersAndSemaphoresAcrossEngines) {
    const Assembly a = assemble(slurp(std::filesystem::path(NSIM_ISA_EXAMPLES_DIR) / "tiled_gemm_double_buffered.s"),
                                "gemm.s");
    std::set<uint64_t> moving_offsets;
    std::set<Engine> waiting_engines;
    for (const auto& s : a.container.streams)
        for (const auto& inst : s.instructions) {
            if (inst.opcode == Opcode::Matmul) moving_offsets.insert(inst.ap(fields::Matmul::moving).offset);
            if (inst.sync.wait_semaphore != kNoSemaphore) waiting_engines.insert(s.engine);
        }
    EXPECT_EQ(moving_offsets.size(), 2u);
    EXPECT_TRUE(waiting_engines.count(Engine::Pe) && waiting_engines.count(Engine::Act) &&
                waiting_engines.count(Engine::Dma));
}

}  // namespace
}  // namespace nsim::isa
