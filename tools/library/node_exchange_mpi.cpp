// NodeExchange over MPI (Open MPI from Debian, found by CMake's FindMPI): one exchange is one
// MPI_Allgather of each process's message length and one MPI_Allgatherv of the messages. A message
// is a status byte, then either the process's node arrivals or the reason it abandoned.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "library/mpi_launcher.h"
#include "library/node_exchange.h"

namespace nsim::library {
namespace {

enum MessageStatus : uint8_t { kArrivals = 0, kAbandoned = 1 };

class MessageWriter {
public:
    template <typename T>
    void put(const T& value) {
        const auto* p = reinterpret_cast<const char*>(&value);
        bytes.insert(bytes.end(), p, p + sizeof value);
    }
    void put_bytes(const void* data, size_t size) {
        const auto* p = static_cast<const char*>(data);
        bytes.insert(bytes.end(), p, p + size);
    }
    std::vector<char> bytes;
};

class MessageReader {
public:
    MessageReader(const char* data, size_t size) : at_(data), end_(data + size) {}
    template <typename T>
    T get() {
        T value;
        take(&value, sizeof value);
        return value;
    }
    void take(void* out, size_t size) {
        if (size_t(end_ - at_) < size) throw Error("cluster exchange: a truncated message from another MPI rank");
        std::memcpy(out, at_, size);
        at_ += size;
    }
    std::string rest() { return std::string(std::exchange(at_, end_), end_); }

private:
    const char* at_;
    const char* end_;
};

class MpiNodes final : public NodeExchange {
public:
    MpiNodes() {
        int initialised = 0;
        MPI_Initialized(&initialised);
        if (!initialised) {
            if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS) throw Error("MPI_Init failed: cannot spread the nodes over the ranks");
            owns_mpi_ = true;
        }
        int rank = 0, size = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        rank_ = uint32_t(rank);
        size_ = uint32_t(size);
    }
    ~MpiNodes() override {
        if (owns_mpi_) MPI_Finalize();
    }

    uint32_t process() const override { return rank_; }
    uint32_t processes() const override { return size_; }

    std::vector<NodeArrival> exchange(const std::vector<NodeArrival>& local) override {
        MessageWriter message;
        message.put(uint8_t(kArrivals));
        message.put(uint32_t(local.size()));
        for (const NodeArrival& a : local) {
            message.put(a.node);
            message.put(a.time_ps);
            message.put(uint32_t(a.rank_data.size()));
            for (const auto& data : a.rank_data) {
                message.put(uint64_t(data.size()));
                message.put_bytes(data.data(), data.size());
            }
        }
        std::vector<NodeArrival> all;
        std::string abandoned;
        for_each_message(gather(message.bytes), [&](MessageReader& in) {
            if (in.get<uint8_t>() == kAbandoned) {
                if (abandoned.empty()) abandoned = in.rest();   // the lowest rank's reason
                return;
            }
            for (uint32_t count = in.get<uint32_t>(); count > 0; --count) {
                NodeArrival a;
                a.node = in.get<uint32_t>();
                a.time_ps = in.get<uint64_t>();
                a.rank_data.resize(in.get<uint32_t>());
                for (auto& data : a.rank_data) {
                    data.resize(in.get<uint64_t>());
                    in.take(data.data(), data.size());
                }
                all.push_back(std::move(a));
            }
        });
        if (!abandoned.empty()) throw ClusterAbandoned(abandoned);
        std::sort(all.begin(), all.end(), [](const NodeArrival& a, const NodeArrival& b) { return a.node < b.node; });
        return all;
    }

    void abandon(const std::string& reason) override {
        MessageWriter message;
        message.put(uint8_t(kAbandoned));
        message.put_bytes(reason.data(), reason.size());
        gather(message.bytes);
    }

    void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }

private:
    // Every process's message, back to back, and where each starts.
    struct Gathered {
        std::vector<char> bytes;
        std::vector<int> lengths, offsets;
    };

    // Collective: every process throws alike when a message is too long for MPI's int counts.
    Gathered gather(const std::vector<char>& mine) {
        Gathered g;
        g.lengths.resize(size_);
        g.offsets.resize(size_);
        const int length = mine.size() > size_t(INT_MAX) ? -1 : int(mine.size());
        MPI_Allgather(&length, 1, MPI_INT, g.lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
        long long total = 0;
        for (uint32_t p = 0; p < size_; ++p) {
            g.offsets[p] = int(std::min<long long>(total, INT_MAX));
            total += g.lengths[p] < 0 ? (long long)INT_MAX + 1 : g.lengths[p];
        }
        if (total > INT_MAX)
            throw Error(fmt::format("cluster exchange: {} bytes from all MPI ranks is more than one exchange moves", total));
        g.bytes.resize(size_t(total));
        MPI_Allgatherv(mine.data(), length, MPI_CHAR, g.bytes.data(), g.lengths.data(), g.offsets.data(), MPI_CHAR,
                       MPI_COMM_WORLD);
        return g;
    }

    template <typename Visit>
    static void for_each_message(const Gathered& g, Visit visit) {
        for (size_t p = 0; p < g.lengths.size(); ++p) {
            MessageReader in(g.bytes.data() + g.offsets[p], size_t(g.lengths[p]));
            visit(in);
        }
    }

    uint32_t rank_ = 0, size_ = 1;
    bool owns_mpi_ = false;
};

}  // namespace

std::unique_ptr<NodeExchange> open_node_exchange() {
    if (started_by_mpi_launcher()) return std::make_unique<MpiNodes>();
    return single_process_nodes();
}

}  // namespace nsim::library
