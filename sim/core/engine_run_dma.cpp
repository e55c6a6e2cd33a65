// DMAs of an engine run: a fixed overhead, then bursts that reserve every shared resource on the
// path at their own simulated time.
#include "core/engine_run.h"
#include "core/semantics/operand_bytes.h"

#include <algorithm>


namespace nsim::sim::core {

BandwidthModel* EngineRun::resource_of(const Core& core, const isa::AccessPattern& ap, bool reading) {
    switch (ap.space) {
        case isa::MemorySpace::Dram: return &core.copy_of(program.tensors.at(ap.tensor)).channel->timing();
        case isa::MemorySpace::Host:
            return reading ? &core.device->endpoint().to_device() : &core.device->endpoint().to_host();
        default: return nullptr;  // SBUF/PSUM: the engine's side of the transfer
    }
}

void EngineRun::start_dma(uint32_t qi, const isa::Instruction& inst, uint64_t now) {
    Queue& q = queues[qi];
    const Core& core = cores[q.core];
    const bool gather = inst.opcode == isa::Opcode::DmaGather;
    const isa::AccessPattern& dst = inst.ap(gather ? isa::fields::DmaGather::dst : isa::fields::DmaCopy::dst);
    const isa::AccessPattern* indices = gather ? &inst.ap(isa::fields::DmaGather::indices) : nullptr;
    uint64_t src_bytes = 0;
    if (gather) {
        // Indices in device or host memory are there in timing runs too: an index outside the
        // table fails the execution whether or not values are computed.
        if (indices->space == isa::MemorySpace::Dram || indices->space == isa::MemorySpace::Host)
            check(q, [&] { gather_row_indices(inst, core.spaces); });
        functional(q, [&] { execute(inst, core.spaces); });
        src_bytes = CostModel::operand_bytes(dst);  // the rows read from the table: as many as written
    } else {
        functional(q, [&] { copy_elements(dst, inst.ap(isa::fields::DmaCopy::src), core.spaces); });
        src_bytes = CostModel::operand_bytes(inst.ap(isa::fields::DmaCopy::src));
    }
    const isa::AccessPattern& src = gather ? inst.ap(isa::fields::DmaGather::table) : inst.ap(isa::fields::DmaCopy::src);
    const uint64_t dst_bytes = CostModel::operand_bytes(dst);
    // One descriptor per contiguous run, of the side cut into more of them; a gather's table rows
    // are one each, as many as the destination's rows.
    const uint64_t descriptors = std::max(contiguous_runs(dst), gather ? 0 : contiguous_runs(src));
    // Each descriptor holds its engine for dma_descriptor_s: the bytes it could have moved meanwhile,
    // at its own peak on the engine and at its sustained share on the device's DMA fabric (the rate
    // DMABW measured its per-descriptor guidance at).
    const auto moved_during_descriptors = [&](double bytes_per_s) {
        return uint64_t(std::llround(double(descriptors) * cost.core().dma_descriptor_s * bytes_per_s));
    };
    Transfer& transfer = q.transfer;
    transfer = Transfer{};
    transfer.total = std::max(src_bytes, dst_bytes);
    transfer.end = now + dma_overhead_ps;
    transfer.add(q.dma_engine, transfer.total + moved_during_descriptors(cost.dma_engine_bytes_per_s()));
    transfer.add(core.device->dma_fabric(),
                 transfer.total + moved_during_descriptors(cost.core().dma_engine_sustained_bytes_per_s));
    transfer.add(resource_of(core, src, true), src_bytes);
    transfer.add(resource_of(core, dst, false), dst_bytes);
    if (indices) transfer.add(resource_of(core, *indices, true), CostModel::operand_bytes(*indices));
    q.bytes += transfer.total;
    // What the device-memory legs above carry, by direction (the profile's hbm_read/write_bytes).
    if (src.space == isa::MemorySpace::Dram) q.hbm_read += src_bytes;
    if (indices && indices->space == isa::MemorySpace::Dram) q.hbm_read += CostModel::operand_bytes(*indices);
    if (dst.space == isa::MemorySpace::Dram) q.hbm_write += dst_bytes;
    q.bursting = true;
    events.schedule(now + dma_overhead_ps, EventKind::Wake, qi);
}

void EngineRun::dma_burst(uint32_t qi, uint64_t now) {
    Transfer& transfer = queues[qi].transfer;
    const uint64_t burst = std::min(kBurstBytes, transfer.total - transfer.moved);
    transfer.moved += burst;
    const bool last = transfer.moved == transfer.total;
    uint64_t next = now;
    for (size_t l = 0; l < transfer.leg_count; ++l) {
        Leg& leg = transfer.legs[l];
        const uint64_t share =
            last ? leg.bytes - leg.sent
                 : uint64_t((unsigned __int128)leg.bytes * transfer.moved / transfer.total) - leg.sent;
        leg.sent += share;
        const uint64_t arrived = leg.model->transfer(at_ps(now), share).value();
        const uint64_t latency = leg.model->latency().value();
        next = std::max(next, arrived - std::min(arrived, latency));
        transfer.end = std::max(transfer.end, arrived);
    }
    if (!last) {
        events.schedule(next, EventKind::Wake, qi);
        return;
    }
    queues[qi].bursting = false;
    finish(qi, transfer.end, transfer.end);
}

}  // namespace nsim::sim::core
