// What the twin's ACL runtime (acl_runtime.cpp) shares with its aclnn layer (aclnn.cpp and an
// operator's twin glue): the lifecycle, the device-memory registry, streams, error messages,
// and the platform kernels launch on.
#ifndef MISHGRAD_TWIN_RUNTIME_H
#define MISHGRAD_TWIN_RUNTIME_H

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "twin/core.h"

namespace twin {

// The one lock of the ACL layer: its calls run one at a time.
std::mutex& AclMutex();

// Records `message` for the calling thread's next aclGetRecentErrMsg, and passes `code` through.
int32_t Error(int32_t code, const std::string& message);

// The value a caller passed for an enum-typed parameter, read as the integer it is. The C
// caller may pass any int; loading a value outside the enum's range through the enum type is
// undefined behaviour in C++, so the bytes are copied and only the integer is ever examined.
template <typename Enum>
int32_t RawEnum(const Enum& value)
{
    static_assert(std::is_enum_v<Enum> && sizeof(Enum) == sizeof(int32_t), "a 32-bit C enum");
    int32_t raw;
    std::memcpy(&raw, &value, sizeof raw);
    return raw;
}

// "" when ACL is initialized and a device is set; else why not (for the aclnn layer, which
// needs both: CANN's aclnn functions run on the runtime aclInit and aclrtSetDevice prepare).
std::string RuntimeNotReady();

// A device allocation containing [address, address + bytes), or nullptr.
struct Allocation {
    const uint8_t* begin;
    uint64_t bytes;       // usable bytes, the padding aclrtMalloc adds included
    uint64_t generation;  // unique per aclrtMalloc: tells a freed-and-reused address apart
};
const Allocation* FindAllocation(const void* address, uint64_t bytes);

// Is `stream` a live stream (or nullptr, the default stream)?
bool IsStream(void* stream);
// Records an execution error on `stream`; aclrtSynchronizeStream reports it.
void FailStream(void* stream, const std::string& message);
// Marks the allocations holding `addresses` as used by `task` (a phase-2 function's name) on
// `stream` until that stream is synchronized or destroyed: aclrtFree refuses them meanwhile,
// because on an NPU the task may still be running when the call that launched it returns.
void UseUntilSynchronized(void* stream, const std::string& task, const std::vector<const void*>& addresses);

// Releases the aclnn layer's runtime resources (executors planned but never run); aclFinalize
// calls it. Defined in aclnn.cpp.
void ReleaseAclnnResources();

// The platform the ACL layer launches kernels on (default: Atlas A2 910B2; aclInit takes the
// vector cores from $MISHGRAD_TWIN_VECTOR_CORES when set).
struct LaunchPlatform {
    uint64_t ubBytes = 196608;
    uint64_t ubReported = 196352;
    uint64_t selectScratchBegin = 188416;
    uint32_t vectorCores = 48;
    uint32_t hostThreads = 0;  // 0: the machine's hardware threads
};
LaunchPlatform& CurrentLaunchPlatform();

}  // namespace twin

#endif  // MISHGRAD_TWIN_RUNTIME_H
