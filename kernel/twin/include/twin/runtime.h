// What the twin's ACL runtime (acl_runtime.cpp) shares with its aclnn layer (aclnn.cpp):
// the device-memory registry, streams, the recent-error message, and the kernel launch.
#ifndef MISHGRAD_TWIN_RUNTIME_H
#define MISHGRAD_TWIN_RUNTIME_H

#include <cstdint>
#include <mutex>
#include <string>

#include "mish_grad_tiling_data.h"
#include "twin/core.h"

namespace twin {

// The one lock of the ACL layer: its calls run one at a time.
std::mutex& AclMutex();

// Records the message aclGetRecentErrMsg returns, and passes `code` through.
int32_t Error(int32_t code, const std::string& message);
void ClearError();

// A device allocation containing [address, address + bytes), or nullptr.
struct Allocation {
    const uint8_t* begin;
    uint64_t bytes;  // usable bytes, the padding aclrtMalloc adds included
};
const Allocation* FindAllocation(const void* address, uint64_t bytes);

// Is `stream` a live stream (or nullptr, the default stream)?
bool IsStream(void* stream);
// Records an execution error on `stream`; aclrtSynchronizeStream reports it.
void FailStream(void* stream, const std::string& message);

// The platform the ACL layer launches the kernel on (default: Atlas A2 910B2).
struct LaunchPlatform {
    uint64_t ubBytes = 196608;
    uint64_t ubReported = 196352;
    uint64_t selectScratchBegin = 188416;
    uint32_t vectorCores = 48;
    uint32_t hostThreads = 0;  // 0: the machine's hardware threads
};
LaunchPlatform& CurrentLaunchPlatform();

// Plans the tiling and runs mish_grad for `dtype` (an aclDataType) on n elements at the given
// device addresses. Returns an error message, or "" on success.
std::string LaunchMishGrad(int32_t dtype, void* grad, void* x, void* tanhx, void* xGrad, uint64_t n,
                           const LaunchPlatform& platform, bool tracing, std::vector<TraceEvent>* trace);

}  // namespace twin

#endif  // MISHGRAD_TWIN_RUNTIME_H
