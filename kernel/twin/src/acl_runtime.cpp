// The CPU twin's ACL runtime: initialization, one device, streams and device memory.
//
// Device memory is host memory, and every allocation is tracked, so the twin can tell a
// device pointer from a host one, check every copy against the allocation it touches, and
// report a buffer freed too early. aclrtMalloc pads like CANN's: the size is rounded up to
// 32 bytes and 32 more are added.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "acl/acl.h"
#include "twin/runtime.h"

namespace twin {
namespace {

struct DeviceBuffer {
    std::unique_ptr<uint8_t[], AlignedDelete> storage;
    uint64_t bytes;
};

struct Stream {
    std::string pendingError;
};

struct Runtime {
    bool initialized = false;
    int32_t device = -1;
    uint32_t deviceHolds = 0;  // aclrtSetDevice calls not yet matched by aclrtResetDevice
    std::map<const uint8_t*, DeviceBuffer> buffers;  // by start address
    std::set<Stream*> streams;
    Stream defaultStream;
    std::string recentError;
    LaunchPlatform platform;
};

Runtime& State()
{
    static Runtime runtime;
    return runtime;
}

constexpr int32_t kDeviceCount = 1;
// What the twin's device may hold in all: far more than any notebook needs, and a clear
// error rather than the host running out of memory.
constexpr uint64_t kDeviceMemoryBytes = 8ull << 30;
// Bytes a fresh allocation holds: NaN in every float format, like uninitialized memory.
constexpr uint8_t kFreshFill = 0xFF;

uint64_t PaddedSize(size_t size) { return (size + 31) / 32 * 32 + 32; }

uint64_t BytesInUse()
{
    uint64_t total = 0;
    for (const auto& [begin, buffer] : State().buffers) {
        total += buffer.bytes;
    }
    return total;
}

int32_t CheckReady(const char* api)
{
    if (!State().initialized) {
        return Error(ACL_ERROR_UNINITIALIZE, std::string(api) + ": aclInit has not been called");
    }
    if (State().device < 0) {
        return Error(ACL_ERROR_RT_CONTEXT_NULL, std::string(api) + ": no device set (call aclrtSetDevice)");
    }
    return ACL_SUCCESS;
}

Stream* StreamOf(void* stream)
{
    if (stream == nullptr) {
        return &State().defaultStream;
    }
    auto* candidate = static_cast<Stream*>(stream);
    return State().streams.count(candidate) != 0 ? candidate : nullptr;
}

}  // namespace

std::mutex& AclMutex()
{
    static std::mutex mutex;
    return mutex;
}

int32_t Error(int32_t code, const std::string& message)
{
    State().recentError = message;
    return code;
}

void ClearError() { State().recentError.clear(); }

const Allocation* FindAllocation(const void* address, uint64_t bytes)
{
    static thread_local Allocation found;
    const auto* begin = static_cast<const uint8_t*>(address);
    auto& buffers = State().buffers;
    auto next = buffers.upper_bound(begin);
    if (next == buffers.begin()) {
        return nullptr;
    }
    const auto& [start, buffer] = *std::prev(next);
    const uint64_t offset = static_cast<uint64_t>(begin - start);
    if (offset > buffer.bytes || bytes > buffer.bytes - offset) {
        return nullptr;
    }
    found = Allocation{start, buffer.bytes};
    return &found;
}

bool IsStream(void* stream) { return StreamOf(stream) != nullptr; }

void FailStream(void* stream, const std::string& message)
{
    Stream* target = StreamOf(stream);
    if (target != nullptr && target->pendingError.empty()) {
        target->pendingError = message;
    }
}

LaunchPlatform& CurrentLaunchPlatform() { return State().platform; }

}  // namespace twin

using twin::Error;

extern "C" {

const char* aclGetRecentErrMsg(void)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    return twin::State().recentError.c_str();
}

aclError aclInit(const char* configPath)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (twin::State().initialized) {
        return Error(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialized");
    }
    if (configPath != nullptr && configPath[0] != '\0' && !std::ifstream(configPath)) {
        return Error(ACL_ERROR_INVALID_FILE, std::string("aclInit: cannot read config file ") + configPath);
    }
    twin::State().initialized = true;
    twin::ClearError();
    return ACL_SUCCESS;
}

aclError aclFinalize(void)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (!twin::State().initialized) {
        return Error(ACL_ERROR_UNINITIALIZE, "aclFinalize: aclInit has not been called");
    }
    twin::State().initialized = false;
    twin::State().device = -1;
    twin::State().deviceHolds = 0;
    return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (!twin::State().initialized) {
        return Error(ACL_ERROR_UNINITIALIZE, "aclrtSetDevice: aclInit has not been called");
    }
    if (deviceId < 0 || deviceId >= twin::kDeviceCount) {
        return Error(ACL_ERROR_RT_INVALID_DEVICEID,
                     "aclrtSetDevice: device " + std::to_string(deviceId) + " does not exist (the twin has device 0)");
    }
    twin::State().device = deviceId;
    ++twin::State().deviceHolds;
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (deviceId != twin::State().device) {
        return Error(ACL_ERROR_RT_INVALID_DEVICEID,
                     "aclrtResetDevice: device " + std::to_string(deviceId) + " is not the current device");
    }
    // Like CANN, reset releases the device's streams and memory only when the last
    // aclrtSetDevice of the process is matched.
    if (--twin::State().deviceHolds > 0) {
        return ACL_SUCCESS;
    }
    for (twin::Stream* stream : twin::State().streams) {
        delete stream;
    }
    twin::State().streams.clear();
    twin::State().buffers.clear();
    twin::State().device = -1;
    return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream* stream)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (stream == nullptr) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is a null pointer");
    }
    if (const int32_t status = twin::CheckReady("aclrtCreateStream"); status != ACL_SUCCESS) {
        return status;
    }
    auto owned = std::make_unique<twin::Stream>();
    *stream = owned.get();
    twin::State().streams.insert(owned.release());
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    auto* target = static_cast<twin::Stream*>(stream);
    if (twin::State().streams.erase(target) == 0) {
        return Error(ACL_ERROR_RT_PARAM_INVALID, "aclrtDestroyStream: not a live stream");
    }
    delete target;
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    twin::Stream* target = twin::StreamOf(stream);
    if (target == nullptr) {
        return Error(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeStream: not a live stream");
    }
    if (!target->pendingError.empty()) {
        const std::string message = "aclrtSynchronizeStream: a task failed: " + target->pendingError;
        target->pendingError.clear();
        return Error(ACL_ERROR_RT_AICORE_EXCEPTION, message);
    }
    return ACL_SUCCESS;
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (devPtr == nullptr || size == 0) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr must not be null and size must be positive");
    }
    if (policy < ACL_MEM_MALLOC_HUGE_FIRST || policy > ACL_MEM_MALLOC_NORMAL_ONLY) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: unknown policy " + std::to_string(policy));
    }
    if (const int32_t status = twin::CheckReady("aclrtMalloc"); status != ACL_SUCCESS) {
        return status;
    }
    const uint64_t padded = twin::PaddedSize(size);
    if (size > twin::kDeviceMemoryBytes || padded > twin::kDeviceMemoryBytes - twin::BytesInUse()) {
        return Error(ACL_ERROR_RT_MEMORY_ALLOCATION,
                     "aclrtMalloc: " + std::to_string(size) + " bytes do not fit the twin's device memory");
    }
    std::unique_ptr<uint8_t[], twin::AlignedDelete> storage(new (std::align_val_t{32}) uint8_t[padded]);
    std::fill(storage.get(), storage.get() + padded, twin::kFreshFill);
    uint8_t* address = storage.get();
    twin::State().buffers.emplace(address, twin::DeviceBuffer{std::move(storage), padded});
    *devPtr = address;
    return ACL_SUCCESS;
}

aclError aclrtFree(void* devPtr)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (devPtr == nullptr) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is a null pointer");
    }
    if (twin::State().buffers.erase(static_cast<const uint8_t*>(devPtr)) == 0) {
        return Error(ACL_ERROR_RT_PARAM_INVALID, "aclrtFree: not the start of a live device allocation");
    }
    return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (dst == nullptr || src == nullptr) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: dst and src must not be null");
    }
    if (count > destMax) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: count " + std::to_string(count) +
                                                  " exceeds destMax " + std::to_string(destMax));
    }
    if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: unknown kind " + std::to_string(kind));
    }
    const bool dstOnDevice = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    const bool srcOnDevice = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    const std::pair<const void*, bool> ends[] = {{dst, dstOnDevice}, {src, srcOnDevice}};
    const char* names[] = {"dst", "src"};
    for (int i = 0; i < 2; ++i) {
        const bool device = twin::FindAllocation(ends[i].first, count) != nullptr;
        const bool inside = twin::FindAllocation(ends[i].first, 0) != nullptr;
        if (ends[i].second && !device) {
            return Error(ACL_ERROR_INVALID_PARAM, std::string("aclrtMemcpy: ") + names[i] + " plus " +
                                                      std::to_string(count) +
                                                      " bytes is not inside one device allocation");
        }
        if (!ends[i].second && inside) {
            return Error(ACL_ERROR_INVALID_PARAM,
                         std::string("aclrtMemcpy: ") + names[i] + " is device memory, but the kind says host");
        }
    }
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}

}  // extern "C"

// Not part of CANN: lets Python choose the platform the twin's aclnn launches plan for.
extern "C" void mishgrad_twin_set_platform(uint64_t ubBytes, uint64_t ubReported, uint64_t selectScratchBegin,
                                           uint32_t vectorCores, uint32_t hostThreads)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    twin::CurrentLaunchPlatform() = twin::LaunchPlatform{ubBytes, ubReported, selectScratchBegin, vectorCores,
                                                         hostThreads};
}
