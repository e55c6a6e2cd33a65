// SweepRanks over MPI (Open MPI from Debian, found by CMake's FindMPI), and the one-process case.
#include "neuron-sim/sweep_ranks.h"

#include <mpi.h>

#include <cstring>
#include <vector>

#include "common/tool_main.h"
#include "library/mpi_launcher.h"

namespace nsim::tools {
namespace {

constexpr int kRowTag = 17;

class SingleProcess final : public SweepRanks {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::optional<std::string> share_from_first(const std::optional<std::string>& text) override { return text; }
    void send_row(const FinishedRow&) override {}
    std::optional<FinishedRow> receive_row(bool) override { return std::nullopt; }
};

class MpiRanks final : public SweepRanks {
public:
    MpiRanks() {
        if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS) throw UserError("MPI_Init failed: cannot spread the sweep over the ranks");
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
    }
    ~MpiRanks() override { MPI_Finalize(); }

    int rank() const override { return rank_; }
    int size() const override { return size_; }

    std::optional<std::string> share_from_first(const std::optional<std::string>& text) override {
        // The length first (-1: none), then the bytes.
        long long length = rank_ == 0 ? (text ? static_cast<long long>(text->size()) : -1) : 0;
        MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        if (length < 0) return std::nullopt;
        std::string shared = rank_ == 0 ? *text : std::string(static_cast<size_t>(length), '\0');
        if (length > 0) MPI_Bcast(shared.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
        return shared;
    }

    void send_row(const FinishedRow& row) override {
        std::vector<char> message(sizeof row.point + row.text.size());
        std::memcpy(message.data(), &row.point, sizeof row.point);
        std::memcpy(message.data() + sizeof row.point, row.text.data(), row.text.size());
        MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kRowTag, MPI_COMM_WORLD);
    }

    std::optional<FinishedRow> receive_row(bool wait) override {
        MPI_Status status;
        if (wait) {
            MPI_Probe(MPI_ANY_SOURCE, kRowTag, MPI_COMM_WORLD, &status);
        } else {
            int arrived = 0;
            MPI_Iprobe(MPI_ANY_SOURCE, kRowTag, MPI_COMM_WORLD, &arrived, &status);
            if (!arrived) return std::nullopt;
        }
        int count = 0;
        MPI_Get_count(&status, MPI_CHAR, &count);
        std::vector<char> message(static_cast<size_t>(count));
        MPI_Recv(message.data(), count, MPI_CHAR, status.MPI_SOURCE, kRowTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        FinishedRow row;
        std::memcpy(&row.point, message.data(), sizeof row.point);
        row.text.assign(message.data() + sizeof row.point, message.size() - sizeof row.point);
        return row;
    }

private:
    int rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<SweepRanks> open_sweep_ranks() {
    if (library::started_by_mpi_launcher()) return std::make_unique<MpiRanks>();
    return std::make_unique<SingleProcess>();
}

}  // namespace nsim::tools
