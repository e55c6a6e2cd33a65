// Collectives, send/recv and barriers of an engine run: members meet, then rings move the bytes
// core to core over DMA engines, device memory, NeuronLinks or PCIe.
#include "core/engine_run.h"

#include <algorithm>

#include "core/collective_data.h"
#include "core/collective_ring.h"

namespace nsim::sim::core {

void EngineRun::arrive(uint32_t qi, const isa::Instruction& inst, uint64_t now) {
    Queue& q = queues[qi];
    q.state = State::Rendezvous;
    RendezvousKey key{};
    uint32_t expected = 0;
    if (inst.opcode == isa::Opcode::Send || inst.opcode == isa::Opcode::Recv) {
        const bool sending = inst.opcode == isa::Opcode::Send;
        const uint32_t peer = sending ? inst.u32(isa::fields::Send::peer_core) : inst.u32(isa::fields::Recv::peer_core);
        const uint32_t channel = sending ? inst.u32(isa::fields::Send::channel) : inst.u32(isa::fields::Recv::channel);
        const uint32_t sender = sending ? q.core : peer, receiver = sending ? peer : q.core;
        if (peer >= cores.size() || peer == q.core)
            throw RunError(fmt::format("{}: peer core {} is not another core of the program", where(q), peer));
        const uint32_t seq = rendezvous_counts[{sending ? 2u : 3u, sender, receiver, channel, 0}]++;
        key = {2, sender, receiver, channel, seq};
        expected = 2;
    } else {
        const CollectiveGroup g = collective_group(inst);
        if (q.core < g.first || q.core >= uint64_t(g.first) + g.count || uint64_t(g.first) + g.count > cores.size())
            throw RunError(fmt::format("{}: core {} is not in the group of cores {} to {}", where(q), q.core, g.first,
                                       uint64_t(g.first) + g.count - 1));
        const uint32_t kind = inst.opcode == isa::Opcode::Barrier ? 1 : 0;
        const uint32_t seq = rendezvous_counts[{kind, q.core, g.first, g.count, 1}]++;
        key = {kind, g.first, g.count, seq, 0};
        expected = g.count;
    }
    std::vector<Arrival>& members = rendezvous[key];
    members.push_back({qi, now});
    if (members.size() < expected) return;
    std::vector<Arrival> met = std::move(members);
    rendezvous.erase(key);
    meet(met, now);
}

uint64_t EngineRun::core_to_core(const Queue& sender, const Hop& hop, uint64_t ready, Queue& credited) {
    const Core& from = cores[sender.core];
    const Core& to = cores[hop.to_core];
    const uint64_t bytes = hop.bytes;
    const uint64_t local_read = hop.reduces ? bytes : 0;  // the receiver's own share, added in the DMA engine
    Path path;
    path.add(hop.dma_engine, bytes);
    path.add(from.device->dma_fabric(), bytes);
    // Staged through the device memory next to each core.
    BandwidthModel* from_memory = &from.weights.channel->timing();
    BandwidthModel* to_memory = &to.weights.channel->timing();
    if (from_memory == to_memory) {
        path.add(from_memory, 2 * bytes + local_read);  // read and write in the same memory
    } else {
        path.add(from_memory, bytes);
        path.add(to_memory, bytes + local_read);
    }
    if (from.device != to.device) {
        BandwidthModel* link = link_between(from.physical.device, to.physical.device);
        if (link) {
            path.add(link, bytes);
        } else {
            path.add(&from.device->endpoint().to_host(), bytes);
            path.add(&to.device->endpoint().to_device(), bytes);
        }
    }
    uint64_t arrived = ready;
    for (size_t l = 0; l < path.leg_count; ++l)
        arrived = std::max<uint64_t>(arrived, path.legs[l].model->transfer(at_ps(ready), path.legs[l].bytes).value());
    collective_bytes += bytes;
    credited.bytes += bytes;
    credited.hbm_read += bytes + local_read;  // staged out of one device memory (and the receiver's share)
    credited.hbm_write += bytes;              // and into another (or the same)
    return arrived;
}

BandwidthModel* EngineRun::link_between(unsigned a, unsigned b) {
    for (const auto& link : platform.links()) {
        if (link->device_a() == a && link->device_b() == b) return &link->a_to_b();
        if (link->device_a() == b && link->device_b() == a) return &link->b_to_a();
    }
    return nullptr;
}

void EngineRun::meet(std::vector<Arrival>& met, uint64_t now) {
    const Queue& first = queues[met.front().queue];
    const isa::Instruction& inst = first.stream->instructions[first.next];
    uint64_t end = now;
    if (inst.opcode == isa::Opcode::Barrier) {
        end = now + cycles_to_ps(first, cost.core().control_instruction_cycles);
    } else if (inst.opcode == isa::Opcode::Send || inst.opcode == isa::Opcode::Recv) {
        const bool first_sends = inst.opcode == isa::Opcode::Send;
        const Queue& sender = first_sends ? first : queues[met.back().queue];
        const Queue& receiver = first_sends ? queues[met.back().queue] : first;
        const isa::Instruction& send = sender.stream->instructions[sender.next];
        const isa::Instruction& recv = receiver.stream->instructions[receiver.next];
        if (send.opcode != isa::Opcode::Send || recv.opcode != isa::Opcode::Recv)
            throw RunError(fmt::format("{}: meets {} instead of recv", where(sender), isa::info(recv.opcode).mnemonic));
        functional(sender, [&] {
            run_send_recv({&send, &cores[sender.core].spaces}, {&recv, &cores[receiver.core].spaces});
        });
        const Hop hop{sender.dma_engine, receiver.core, CostModel::operand_bytes(send.ap(isa::fields::Send::src)), false};
        end = core_to_core(sender, hop, now + dma_overhead_ps, queues[met.front().queue]);
    } else {
        std::sort(met.begin(), met.end(),
                  [&](const Arrival& a, const Arrival& b) { return queues[a.queue].core < queues[b.queue].core; });
        std::vector<CollectiveRank> ranks;
        for (const Arrival& a : met) {
            const Queue& q = queues[a.queue];
            const isa::Instruction& mine = q.stream->instructions[q.next];
            if (mine.opcode != inst.opcode)
                throw RunError(fmt::format("{}: meets {} of core {}", where(q), isa::info(inst.opcode).mnemonic,
                                           first.core));
            ranks.push_back({&mine, &cores[q.core].spaces});
        }
        functional(first, [&] { run_collective(ranks); });
        end = ring(met, inst, now);
    }
    for (const Arrival& a : met) {
        Queue& q = queues[a.queue];
        q.wait_ps += now - a.time;  // waiting for the peers is not work
        waited(q, WaitKind::Peers, a.time, now);
        q.started = now;
        if (q.engine == isa::Engine::Dma) dma_busy_from(q, now);
        finish(a.queue, end, end);
    }
}

BandwidthModel* EngineRun::dma_engine_of(uint32_t core, uint32_t index) {
    const Core& c = cores[core];
    const uint32_t engines = cost.core().dma_engines;
    return &c.device->dma_engines().at(c.physical.core * engines + index % engines)->engine_timing();
}

const std::vector<uint32_t>& EngineRun::ring_of(const std::vector<Arrival>& met) {
    const uint32_t first = queues[met.front().queue].core;
    auto found = rings.find({first, uint32_t(met.size())});
    if (found != rings.end()) return found->second;
    std::vector<uint32_t> device_of_rank;
    for (const Arrival& a : met) device_of_rank.push_back(cores[queues[a.queue].core].physical.device);
    std::vector<uint32_t> order =
        ring_order(device_of_rank, [this](uint32_t a, uint32_t b) { return link_between(a, b) != nullptr; });
    return rings.emplace(std::make_pair(first, uint32_t(met.size())), std::move(order)).first->second;
}

uint64_t EngineRun::ring(const std::vector<Arrival>& met, const isa::Instruction& inst, uint64_t now) {
    const uint64_t n = met.size();
    size_t src_field = isa::fields::ReduceScatter::src;
    if (inst.opcode == isa::Opcode::AllReduce) src_field = isa::fields::AllReduce::src;
    if (inst.opcode == isa::Opcode::AllGather) src_field = isa::fields::AllGather::src;
    const uint64_t bytes = CostModel::operand_bytes(inst.ap(src_field));
    // The data splits over the rings; ring k goes forward round the order when k is even, backward when odd.
    const uint64_t ring_count = std::max<uint32_t>(1, platform.spec().chip.link.collective_rings);
    const uint64_t ring_bytes = (bytes + ring_count - 1) / ring_count;
    uint64_t reduce_steps = 0, gather_steps = 0, share = 0;
    if (inst.opcode == isa::Opcode::AllReduce) reduce_steps = n - 1, gather_steps = n - 1, share = (ring_bytes + n - 1) / n;
    else if (inst.opcode == isa::Opcode::AllGather) gather_steps = n - 1, share = ring_bytes;
    else reduce_steps = n - 1, share = (ring_bytes + n - 1) / n;
    const std::vector<uint32_t>& order = ring_of(met);
    uint64_t t = now;
    for (uint64_t s = 0; s < reduce_steps + gather_steps; ++s) {
        const uint64_t ready = t + dma_overhead_ps;
        uint64_t step_end = ready;
        for (uint64_t k = 0; k < ring_count; ++k) {
            for (uint64_t p = 0; p < n; ++p) {
                Queue& sender = queues[met[order[p]].queue];
                const uint64_t next = k % 2 == 0 ? (p + 1) % n : (p + n - 1) % n;
                const Hop hop{dma_engine_of(sender.core, sender.number + uint32_t(k)), queues[met[order[next]].queue].core,
                              share, s < reduce_steps};
                step_end = std::max(step_end, core_to_core(sender, hop, ready, sender));
            }
        }
        t = step_end;
    }
    return t;
}

}  // namespace nsim::sim::core
