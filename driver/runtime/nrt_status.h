// The runtime's status codes, numbered and named as the real runtime's NRT_STATUS (driver.md 12,
// nrt_status.h). There is no code 8 or 12.
#pragma once

namespace nsim::runtime {

enum class NrtStatus : int {
    Success = 0,
    Failure = 1,
    Invalid = 2,
    InvalidHandle = 3,
    Resource = 4,
    Timeout = 5,
    HwError = 6,
    QueueFull = 7,
    LoadNotEnoughNc = 9,
    UnsupportedNeffVersion = 10,
    FailHostMemAlloc = 11,
    Uninitialized = 13,
    Closed = 14,
    QueueEmpty = 15,
    ExecUnitUnrecoverable = 101,
    ExecBadInput = 1002,
    ExecCompletedWithNumErr = 1003,
    ExecCompletedWithErr = 1004,
    ExecNcBusy = 1005,
    ExecOob = 1006,
    CollPending = 1100,
    ExecHwErrCollectives = 1200,
    ExecHwErrHbmUe = 1201,
    ExecHwErrNcUe = 1202,
    ExecHwErrDmaAbort = 1203,
    ExecSwNqOverflow = 1204,
    ExecHwErrRepairableHbmUe = 1205,
    NetworkProxyFailure = 1206,
};

// "NRT_SUCCESS", "NRT_RESOURCE", ...
const char* name_of(NrtStatus status);

}  // namespace nsim::runtime
