// The builder's synchronisation of DMA transfers: a load that overwrites a buffer after it was read
// waits for its readers only (they waited for the earlier load), with one semaphore wait on the DMA
// queues themselves, so it can run ahead of every compute engine (a weight ring prefetches).
#include <gtest/gtest.h>

#include "builder/program_builder.h"
#include "device_run.h"

namespace nsim::kernels::testing {
namespace {

// Whether some Pool instruction waits on the semaphore the last Act instruction signals: the
// given-back buffer's reader (Act) is waited for by the write that reuses its bytes (Pool).
bool pool_waits_for_act_signal(const isa::Container& c) {
    uint16_t act_signal = isa::kNoSemaphore;
    for (const isa::InstructionStream& s : c.streams)
        if (s.engine == isa::Engine::Act && !s.instructions.empty()) act_signal = s.instructions.back().sync.signal_semaphore;
    if (act_signal == isa::kNoSemaphore) return false;
    for (const isa::InstructionStream& s : c.streams)
        if (s.engine == isa::Engine::Pool)
            for (const isa::Instruction& inst : s.instructions)
                if (inst.sync.wait_semaphore == act_signal) return true;
    return false;
}

using builder::CoreBuilder;

TEST(CoreBuilderSync, AReloadAfterReadsWaitsForItsReaderAloneWithoutAJoin) {
    const config::NeuronCoreSpec spec = core_spec("trn1.2xlarge");
    builder::ProgramBuilder program(spec, 1);
    const uint32_t tensor = program.add_tensor("w", isa::TensorRole::Weight, isa::DType::Fp32, {128, 64});
    CoreBuilder& core = program.core(0);
    // Four queues wide, so that the reload lands on the queues of the first load.
    builder::DmaChannel& channel = core.dma_channel("weights", 0, 4);
    const builder::Buffer slot = core.sbuf(64 * 4, "slot"), copy = core.sbuf(64 * 4, "copy");
    const auto src = builder::dram(builder::dram_rows(tensor, isa::DType::Fp32, 64, 0, 128, 0, 64));
    const auto dst = builder::tile(slot, isa::DType::Fp32, 0, 128, 0, 64);
    core.dma(channel, CoreBuilder::split_rows(dst, src, 4));
    core.tensor_copy(isa::Engine::Dve, builder::tile(copy, isa::DType::Fp32, 0, 128, 0, 64), dst);
    core.dma(channel, CoreBuilder::split_rows(dst, src, 4));
    core.finish();
    const isa::Container c = program.finish();

    size_t dve_instructions = 0, reloads = 0;
    for (const isa::InstructionStream& s : c.streams) {
        if (s.engine == isa::Engine::Dve) dve_instructions += s.instructions.size();
        if (s.engine != isa::Engine::Dma || s.instructions.size() != 2) continue;
        ++reloads;
        const isa::Instruction& reload = s.instructions[1];
        ASSERT_NE(reload.sync.wait_semaphore, isa::kNoSemaphore);
        // The copy's progress semaphore: the reader, not the earlier load's own semaphore.
        EXPECT_NE(reload.sync.wait_semaphore, s.instructions[0].sync.signal_semaphore);
    }
    EXPECT_EQ(reloads, 4u);          // one per DMA queue of the channel
    EXPECT_EQ(dve_instructions, 1u);  // the copy; no join marker
}

// A core on which Dve fills buffer `old` and Act reads it into `kept`; `old` lies above `mark`, so a
// rewind gives it back. The tests then write over its bytes and ask whether Pool waits for Act.
class ActReadsABuffer {
public:
    ActReadsABuffer() {
        core.memset(isa::Engine::Dve, columns(old, 0, 64), 1.0f);
        core.activation(columns(kept, 0, 64), columns(old, 0, 64), isa::ActivationFunction::Identity);
    }
    static builder::View columns(const builder::Buffer& b, uint32_t first, uint32_t count) {
        return builder::tile(b, isa::DType::Fp32, 0, 128, first, count);
    }
    // Gives back everything above `mark` (`old` with it) and allocates `columns` fp32 columns there.
    builder::Buffer reuse(uint32_t columns, const std::string& what) {
        core.sbuf_rewind(mark);
        return core.sbuf(columns * 4, what);
    }
    bool pool_waits_for_act() {
        core.finish();
        return pool_waits_for_act_signal(program.finish());
    }

    const config::NeuronCoreSpec spec = core_spec("trn1.2xlarge");
    builder::ProgramBuilder program{spec, 1};
    CoreBuilder& core = program.core(0);
    const builder::Buffer kept = core.sbuf(64 * 4, "kept");
    const uint64_t mark = core.sbuf_mark();
    const builder::Buffer old = core.sbuf(64 * 4, "old");
};

// Memory given back with sbuf_rewind is reused at the same offsets, and a write into the new buffer
// waits for the last reader of the old one (they overlap, as an alias does); a rewind to a point the
// builder did not hand out is refused.
TEST(CoreBuilderSync, ARewoundBufferWaitsForTheReadersOfTheOneItReuses) {
    ActReadsABuffer t;
    const builder::Buffer reused = t.reuse(64, "reused");
    EXPECT_EQ(reused.offset, t.old.offset);
    t.core.memset(isa::Engine::Pool, t.columns(reused, 0, 64), 2.0f);
    EXPECT_THROW(t.core.sbuf_rewind(t.core.sbuf_used() + 1), std::logic_error);
    EXPECT_TRUE(t.pool_waits_for_act());
}

// A buffer given back twice: the second generation covers only half of the first, so the third,
// over all of it, still waits for the first one's reader (the builder hands a given-back buffer's
// pending readers to the buffers that reuse its bytes rather than tracking it for ever).
TEST(CoreBuilderSync, ABufferOverTwoGivenBackOnesWaitsForTheOlderOnesReader) {
    ActReadsABuffer t;
    const builder::Buffer second = t.reuse(32, "second");
    t.core.memset(isa::Engine::Dve, t.columns(second, 0, 32), 2.0f);
    const builder::Buffer third = t.reuse(64, "third");
    EXPECT_EQ(third.offset, t.old.offset);
    t.core.memset(isa::Engine::Pool, t.columns(third, 0, 64), 3.0f);
    EXPECT_TRUE(t.pool_waits_for_act());
}

// A partial write waits for no other write (it fills columns none of them touched), so it must wait
// itself for the readers those writes waited for: here Act reads the buffer, Dve overwrites its first
// half and Pool its second half as a part; Pool must still wait for Act (it once waited for nothing,
// and the race checker found the like in BERT-base's training program: a store's DMA reading a tile
// while an evacuation into its other columns overwrote it).
TEST(CoreBuilderSync, APartialWriteAfterAnotherWriteStillWaitsForTheReadersBeforeIt) {
    ActReadsABuffer t;
    t.core.memset(isa::Engine::Dve, t.columns(t.old, 0, 32), 2.0f);
    t.core.memset(isa::Engine::Pool, t.columns(t.old, 32, 32).part(), 3.0f);
    EXPECT_TRUE(t.pool_waits_for_act());
}

// The same over bytes a rewind gave back: a partial write into the new buffer follows the old one's
// reader and writer.
TEST(CoreBuilderSync, APartialWriteIntoAReusedBufferWaitsForTheOldOnesReader) {
    ActReadsABuffer t;
    const builder::Buffer reused = t.reuse(64, "reused");
    t.core.memset(isa::Engine::Dve, t.columns(reused, 0, 32), 2.0f);
    t.core.memset(isa::Engine::Pool, t.columns(reused, 32, 32).part(), 3.0f);
    EXPECT_TRUE(t.pool_waits_for_act());
}

}  // namespace
}  // namespace nsim::kernels::testing
