#include "nrt_status.h"

namespace nsim::runtime {

const char* name_of(NrtStatus status) {
    switch (status) {
        case NrtStatus::Success: return "NRT_SUCCESS";
        case NrtStatus::Failure: return "NRT_FAILURE";
        case NrtStatus::Invalid: return "NRT_INVALID";
        case NrtStatus::InvalidHandle: return "NRT_INVALID_HANDLE";
        case NrtStatus::Resource: return "NRT_RESOURCE";
        case NrtStatus::Timeout: return "NRT_TIMEOUT";
        case NrtStatus::HwError: return "NRT_HW_ERROR";
        case NrtStatus::QueueFull: return "NRT_QUEUE_FULL";
        case NrtStatus::LoadNotEnoughNc: return "NRT_LOAD_NOT_ENOUGH_NC";
        case NrtStatus::UnsupportedNeffVersion: return "NRT_UNSUPPORTED_NEFF_VERSION";
        case NrtStatus::FailHostMemAlloc: return "NRT_FAIL_HOST_MEM_ALLOC";
        case NrtStatus::Uninitialized: return "NRT_UNINITIALIZED";
        case NrtStatus::Closed: return "NRT_CLOSED";
        case NrtStatus::QueueEmpty: return "NRT_QUEUE_EMPTY";
        case NrtStatus::ExecUnitUnrecoverable: return "NRT_EXEC_UNIT_UNRECOVERABLE";
        case NrtStatus::ExecBadInput: return "NRT_EXEC_BAD_INPUT";
        case NrtStatus::ExecCompletedWithNumErr: return "NRT_EXEC_COMPLETED_WITH_NUM_ERR";
        case NrtStatus::ExecCompletedWithErr: return "NRT_EXEC_COMPLETED_WITH_ERR";
        case NrtStatus::ExecNcBusy: return "NRT_EXEC_NC_BUSY";
        case NrtStatus::ExecOob: return "NRT_EXEC_OOB";
        case NrtStatus::CollPending: return "NRT_COLL_PENDING";
        case NrtStatus::ExecHwErrCollectives: return "NRT_EXEC_HW_ERR_COLLECTIVES";
        case NrtStatus::ExecHwErrHbmUe: return "NRT_EXEC_HW_ERR_HBM_UE";
        case NrtStatus::ExecHwErrNcUe: return "NRT_EXEC_HW_ERR_NC_UE";
        case NrtStatus::ExecHwErrDmaAbort: return "NRT_EXEC_HW_ERR_DMA_ABORT";
        case NrtStatus::ExecSwNqOverflow: return "NRT_EXEC_SW_NQ_OVERFLOW";
        case NrtStatus::ExecHwErrRepairableHbmUe: return "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE";
        case NrtStatus::NetworkProxyFailure: return "NRT_NETWORK_PROXY_FAILURE";
    }
    return "NRT_FAILURE";
}

}  // namespace nsim::runtime
