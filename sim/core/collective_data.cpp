#include "core/collective_data.h"

#include <string>

#include "isa/opcode_table.h"

namespace nsim::sim::core {
namespace {

// Operand indices of the collectives (their tables share the dst/src/op layout).
struct CollectiveFields {
    size_t dst, src, op;
};

CollectiveFields fields_of(isa::Opcode opcode) {
    switch (opcode) {
        case isa::Opcode::AllReduce:
            return {isa::fields::AllReduce::dst, isa::fields::AllReduce::src, isa::fields::AllReduce::op};
        case isa::Opcode::ReduceScatter:
            return {isa::fields::ReduceScatter::dst, isa::fields::ReduceScatter::src, isa::fields::ReduceScatter::op};
        case isa::Opcode::AllGather:
            return {isa::fields::AllGather::dst, isa::fields::AllGather::src, isa::fields::AllGather::field_count};
        default: break;
    }
    throw SemanticsError(std::string(isa::info(opcode).mnemonic) + " is not a collective");
}

Tile shaped_like(const isa::AccessPattern& ap, std::vector<float> values, const char* mnemonic) {
    Tile tile;
    tile.partitions = ap.partition_count;
    tile.free = ap.free_elements();
    if (values.size() != uint64_t(tile.partitions) * tile.free)
        throw SemanticsError(std::string(mnemonic) + ": dst holds " + std::to_string(uint64_t(tile.partitions) * tile.free) +
                             " elements, the collective produces " + std::to_string(values.size()));
    tile.values = std::move(values);
    return tile;
}

}  // namespace

void run_collective(const std::vector<CollectiveRank>& ranks) {
    if (ranks.empty()) return;
    const isa::Opcode opcode = ranks.front().instruction->opcode;
    const char* mnemonic = isa::info(opcode).mnemonic.data();
    const CollectiveFields f = fields_of(opcode);

    std::vector<Tile> sources;
    for (const CollectiveRank& r : ranks) sources.push_back(read_tile(r.instruction->ap(f.src), *r.spaces));

    if (opcode == isa::Opcode::AllGather) {
        std::vector<float> gathered;
        for (const Tile& t : sources) gathered.insert(gathered.end(), t.values.begin(), t.values.end());
        for (const CollectiveRank& r : ranks) {
            const isa::AccessPattern& dst = r.instruction->ap(f.dst);
            write_tile(dst, shaped_like(dst, gathered, mnemonic), *r.spaces);
        }
        return;
    }

    Tile total = sources.front();
    const isa::ReduceOp op = ranks.front().instruction->reduce(f.op);
    for (size_t i = 1; i < sources.size(); ++i) combine(op, total, sources[i]);

    if (opcode == isa::Opcode::AllReduce) {
        for (const CollectiveRank& r : ranks) {
            const isa::AccessPattern& dst = r.instruction->ap(f.dst);
            write_tile(dst, shaped_like(dst, total.values, mnemonic), *r.spaces);
        }
        return;
    }

    const size_t n = ranks.size();
    if (total.values.size() % n != 0)
        throw SemanticsError(std::string(mnemonic) + ": " + std::to_string(total.values.size()) +
                             " elements do not split into " + std::to_string(n) + " equal parts");
    const size_t part = total.values.size() / n;
    for (size_t r = 0; r < n; ++r) {
        const isa::AccessPattern& dst = ranks[r].instruction->ap(f.dst);
        std::vector<float> mine(total.values.begin() + r * part, total.values.begin() + (r + 1) * part);
        write_tile(dst, shaped_like(dst, std::move(mine), mnemonic), *ranks[r].spaces);
    }
}

void run_send_recv(const CollectiveRank& send, const CollectiveRank& recv) {
    const Tile data = read_tile(send.instruction->ap(isa::fields::Send::src), *send.spaces);
    const isa::AccessPattern& dst = recv.instruction->ap(isa::fields::Recv::dst);
    write_tile(dst, shaped_like(dst, data.values, "recv"), *recv.spaces);
}

}  // namespace nsim::sim::core
