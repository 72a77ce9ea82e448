// The CPU twin's ACL runtime: the lifecycle, one device, streams, device memory and the
// per-thread error messages.
//
// Device memory is host memory, and every allocation is tracked, so the twin can tell a
// device pointer from a host one, check every copy against the allocation it touches, and
// report a buffer freed too early. aclrtMalloc pads like CANN's: the size is rounded up to
// 32 bytes and 32 more are added.
//
// The lifecycle is CANN's documented one:
// - aclInit can be called only once in a process (CANN's acl_rt.h, cann/runtime at
//   681ef7610df13c8128982901142a2c869ddbb53e, include/external/acl/acl_rt.h lines 1081-1091):
//   a second call, also after aclFinalize, is ACL_ERROR_REPEAT_INITIALIZE. Every other runtime
//   call before aclInit or after aclFinalize is ACL_ERROR_UNINITIALIZE; a second aclFinalize
//   is ACL_ERROR_REPEAT_FINALIZE.
// - aclFinalize releases what ACL holds in the process, aclnn's resources included (CANN's
//   aclnnFinalize page, https://www.hiascend.com/document/detail/en/canncommercial/850/API/aolapi/operatorlist_00013.html):
//   here device memory, streams, the device and executors planned but never run.
// - aclrtSetDevice and aclrtResetDevice count references: resources are released when the
//   count returns to 0, and a reset with no set to match is an error (CANN's aclrtResetDevice
//   page, https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/aclcppdevg_03_0040.html,
//   and aclrtResetDeviceForce's, .../aclcppdevg_03_0041.html). An id outside [0, device
//   count) is ACL_ERROR_RT_INVALID_DEVICEID (aclrtSetDevice's page,
//   https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/aclcppdevg_03_0039.html).
// - aclGetRecentErrMsg returns and clears the calling thread's messages, the latest on top
//   (https://www.hiascend.com/document/detail/en/canncommercial/850/API/appdevgapi/aclcppdevg_03_0133.html);
//   a successful call leaves them in place.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "acl/acl.h"
#include "twin/handles.h"
#include "twin/runtime.h"

namespace twin {
namespace {

struct DeviceBuffer {
    std::unique_ptr<uint8_t[], AlignedDelete> storage;
    uint64_t bytes;
    uint64_t generation;
};

struct Stream {
    std::string pendingError;
};

enum class Lifecycle { kNeverInitialized, kInitialized, kFinalized };

struct Runtime {
    Lifecycle lifecycle = Lifecycle::kNeverInitialized;
    uint32_t deviceHolds = 0;  // aclrtSetDevice calls not yet matched by aclrtResetDevice
    std::map<const uint8_t*, DeviceBuffer> buffers;  // by start address
    uint64_t allocations = 0;                        // aclrtMalloc calls so far: the next generation
    HandleTable<Stream> streams;
    Stream defaultStream;
    LaunchPlatform platform;
    // Allocations a task launched on a stream still uses, by start address: the stream and the
    // task, until that stream is synchronized or destroyed (UseUntilSynchronized).
    std::map<const uint8_t*, std::pair<const Stream*, std::string>> inFlight;
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
// Unread messages kept per thread; older ones are lost, as CANN warns they may be.
constexpr size_t kKeptMessages = 16;

struct ThreadMessages {
    std::deque<std::string> pending;  // newest first
    std::string returned;             // what the last aclGetRecentErrMsg returned
};

ThreadMessages& Messages()
{
    thread_local ThreadMessages messages;
    return messages;
}

uint64_t PaddedSize(size_t size) { return (size + 31) / 32 * 32 + 32; }  // size <= 8 GiB: cannot wrap

uint64_t BytesInUse()
{
    uint64_t total = 0;
    for (const auto& [begin, buffer] : State().buffers) {
        total += buffer.bytes;
    }
    return total;
}

bool DeviceIdExists(int32_t deviceId) { return deviceId >= 0 && deviceId < kDeviceCount; }

// ACL_SUCCESS if aclInit has run and aclFinalize has not; else the error, recorded.
int32_t CheckInitialized(const char* api)
{
    if (State().lifecycle != Lifecycle::kInitialized) {
        const bool finalized = State().lifecycle == Lifecycle::kFinalized;
        return Error(ACL_ERROR_UNINITIALIZE,
                     std::string(api) + (finalized ? ": aclFinalize has been called" : ": aclInit has not been called"));
    }
    return ACL_SUCCESS;
}

// As CheckInitialized, and a device must be set.
int32_t CheckReady(const char* api)
{
    if (const int32_t status = CheckInitialized(api); status != ACL_SUCCESS) {
        return status;
    }
    if (State().deviceHolds == 0) {
        return Error(ACL_ERROR_RT_CONTEXT_NULL, std::string(api) + ": no device set (call aclrtSetDevice)");
    }
    return ACL_SUCCESS;
}

Stream* StreamOf(void* stream)
{
    return stream == nullptr ? &State().defaultStream : State().streams.Find(stream);
}

// What a device holds: released when the last aclrtSetDevice is matched, and by aclFinalize.
void ReleaseDevice()
{
    State().streams.Clear();
    State().defaultStream.pendingError.clear();
    State().buffers.clear();
    State().inFlight.clear();
    State().deviceHolds = 0;
}

}  // namespace

std::mutex& AclMutex()
{
    static std::mutex mutex;
    return mutex;
}

int32_t Error(int32_t code, const std::string& message)
{
    std::deque<std::string>& pending = Messages().pending;
    pending.push_front(message);
    if (pending.size() > kKeptMessages) {
        pending.pop_back();
    }
    return code;
}

std::string RuntimeNotReady()
{
    if (State().lifecycle != Lifecycle::kInitialized) {
        return State().lifecycle == Lifecycle::kFinalized ? "aclFinalize has been called" : "aclInit has not been called";
    }
    return State().deviceHolds == 0 ? "no device set (call aclrtSetDevice)" : "";
}

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
    // Compared as integers: the address may lie in no object at all.
    const uint64_t offset = reinterpret_cast<uintptr_t>(begin) - reinterpret_cast<uintptr_t>(start);
    if (offset > buffer.bytes || bytes > buffer.bytes - offset) {
        return nullptr;
    }
    found = Allocation{start, buffer.bytes, buffer.generation};
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

void UseUntilSynchronized(void* stream, const std::string& task, const std::vector<const void*>& addresses)
{
    const Stream* target = StreamOf(stream);
    for (const void* address : addresses) {
        if (const Allocation* allocation = FindAllocation(address, 0); allocation != nullptr && target != nullptr) {
            State().inFlight[allocation->begin] = {target, task};
        }
    }
}

// The stream's tasks are done: the allocations they used may be freed.
void Settle(const Stream* stream)
{
    auto& inFlight = State().inFlight;
    for (auto entry = inFlight.begin(); entry != inFlight.end();) {
        entry = entry->second.first == stream ? inFlight.erase(entry) : std::next(entry);
    }
}

LaunchPlatform& CurrentLaunchPlatform() { return State().platform; }

namespace {

// $MISHGRAD_TWIN_VECTOR_CORES, when set, is the vector-core count launches plan for until Python
// chooses a platform (mishgrad_twin_set_platform): with $MISHGRAD_TWIN_SOC_NAME it lets a
// stand-in CANN pose as another chip (a 910B3: 40), whose runtime would report its own. Returns
// "" when unset or applied, else why the value is refused.
std::string ApplyVectorCores()
{
    constexpr unsigned long kMaxVectorCores = 1024;  // far above any Ascend chip's
    const char* text = std::getenv("MISHGRAD_TWIN_VECTOR_CORES");
    if (text == nullptr) {
        return "";
    }
    char* end = nullptr;
    errno = 0;
    const unsigned long cores = std::strtoul(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 || cores == 0 || cores > kMaxVectorCores) {
        return std::string("aclInit: MISHGRAD_TWIN_VECTOR_CORES=") + text +
               " is not a count of vector cores from 1 to " + std::to_string(kMaxVectorCores);
    }
    State().platform.vectorCores = static_cast<uint32_t>(cores);
    return "";
}

}  // namespace

}  // namespace twin

using twin::Error;

extern "C" {

const char* aclGetRecentErrMsg(void)
{
    twin::ThreadMessages& messages = twin::Messages();  // this thread's: no lock needed
    messages.returned.clear();
    for (const std::string& message : messages.pending) {
        messages.returned += (messages.returned.empty() ? "" : "\n") + message;
    }
    messages.pending.clear();
    return messages.returned.c_str();
}

const char* aclrtGetSocName(void)
{
    // Read once, as CANN reads the chip once: the pointer stays valid for the process.
    static const std::optional<std::string> name = []() -> std::optional<std::string> {
        const char* chosen = std::getenv("MISHGRAD_TWIN_SOC_NAME");
        if (chosen == nullptr) {
            return "Ascend910B2";
        }
        return chosen[0] == '\0' ? std::nullopt : std::optional<std::string>(chosen);
    }();
    return name ? name->c_str() : nullptr;
}

aclError aclInit(const char* configPath)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (twin::State().lifecycle != twin::Lifecycle::kNeverInitialized) {
        return Error(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: can be called only once in a process");
    }
    if (configPath != nullptr && configPath[0] != '\0' && !std::ifstream(configPath)) {
        return Error(ACL_ERROR_INVALID_FILE, std::string("aclInit: cannot read config file ") + configPath);
    }
    if (const std::string refused = twin::ApplyVectorCores(); !refused.empty()) {
        return Error(ACL_ERROR_INVALID_PARAM, refused);
    }
    twin::State().lifecycle = twin::Lifecycle::kInitialized;
    return ACL_SUCCESS;
}

aclError aclFinalize(void)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (twin::State().lifecycle == twin::Lifecycle::kFinalized) {
        return Error(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: already finalized");
    }
    if (const int32_t status = twin::CheckInitialized("aclFinalize"); status != ACL_SUCCESS) {
        return status;
    }
    twin::ReleaseDevice();
    twin::ReleaseAclnnResources();
    twin::State().lifecycle = twin::Lifecycle::kFinalized;
    return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (const int32_t status = twin::CheckInitialized("aclrtSetDevice"); status != ACL_SUCCESS) {
        return status;
    }
    if (!twin::DeviceIdExists(deviceId)) {
        return Error(ACL_ERROR_RT_INVALID_DEVICEID,
                     "aclrtSetDevice: device " + std::to_string(deviceId) + " does not exist (the twin has device 0)");
    }
    ++twin::State().deviceHolds;
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (const int32_t status = twin::CheckInitialized("aclrtResetDevice"); status != ACL_SUCCESS) {
        return status;
    }
    if (!twin::DeviceIdExists(deviceId)) {
        return Error(ACL_ERROR_RT_INVALID_DEVICEID,
                     "aclrtResetDevice: device " + std::to_string(deviceId) + " does not exist (the twin has device 0)");
    }
    if (twin::State().deviceHolds == 0) {
        return Error(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtResetDevice: device " + std::to_string(deviceId) +
                                                        " is not set: no aclrtSetDevice left to match");
    }
    if (--twin::State().deviceHolds == 0) {
        twin::ReleaseDevice();
    }
    return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream* stream)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (const int32_t status = twin::CheckReady("aclrtCreateStream"); status != ACL_SUCCESS) {
        return status;
    }
    if (stream == nullptr) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is a null pointer");
    }
    *stream = twin::State().streams.Insert(std::make_unique<twin::Stream>());
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (const int32_t status = twin::CheckInitialized("aclrtDestroyStream"); status != ACL_SUCCESS) {
        return status;
    }
    const std::unique_ptr<twin::Stream> destroyed = twin::State().streams.Take(stream);
    if (destroyed == nullptr) {
        return Error(ACL_ERROR_RT_PARAM_INVALID, "aclrtDestroyStream: not a live stream");
    }
    twin::Settle(destroyed.get());  // destroying a stream waits for its tasks, as CANN's does
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (const int32_t status = twin::CheckReady("aclrtSynchronizeStream"); status != ACL_SUCCESS) {
        return status;
    }
    twin::Stream* target = twin::StreamOf(stream);
    if (target == nullptr) {
        return Error(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeStream: not a live stream");
    }
    twin::Settle(target);
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
    if (const int32_t status = twin::CheckReady("aclrtMalloc"); status != ACL_SUCCESS) {
        return status;
    }
    if (devPtr == nullptr || size == 0) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr must not be null and size must be positive");
    }
    const int32_t rawPolicy = twin::RawEnum(policy);
    if (rawPolicy < ACL_MEM_MALLOC_HUGE_FIRST || rawPolicy > ACL_MEM_MALLOC_NORMAL_ONLY) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: unknown policy " + std::to_string(rawPolicy));
    }
    if (size > twin::kDeviceMemoryBytes || twin::PaddedSize(size) > twin::kDeviceMemoryBytes - twin::BytesInUse()) {
        return Error(ACL_ERROR_RT_MEMORY_ALLOCATION,
                     "aclrtMalloc: " + std::to_string(size) + " bytes do not fit the twin's device memory");
    }
    const uint64_t padded = twin::PaddedSize(size);
    std::unique_ptr<uint8_t[], twin::AlignedDelete> storage(new (std::align_val_t{32}) uint8_t[padded]);
    std::fill(storage.get(), storage.get() + padded, twin::kFreshFill);
    uint8_t* address = storage.get();
    const uint64_t generation = ++twin::State().allocations;
    twin::State().buffers.emplace(address, twin::DeviceBuffer{std::move(storage), padded, generation});
    *devPtr = address;
    return ACL_SUCCESS;
}

aclError aclrtFree(void* devPtr)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (const int32_t status = twin::CheckInitialized("aclrtFree"); status != ACL_SUCCESS) {
        return status;
    }
    if (devPtr == nullptr) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is a null pointer");
    }
    if (const auto busy = twin::State().inFlight.find(static_cast<const uint8_t*>(devPtr));
        busy != twin::State().inFlight.end()) {
        return Error(ACL_ERROR_RT_PARAM_INVALID,
                     "aclrtFree: " + busy->second.second +
                         ", launched on a stream not synchronized since, still uses this block: on an NPU the "
                         "kernel may still be reading or writing it, and freeing it now is undefined. Call "
                         "aclrtSynchronizeStream on that stream first (a twin-only check)");
    }
    if (twin::State().buffers.erase(static_cast<const uint8_t*>(devPtr)) == 0) {
        return Error(ACL_ERROR_RT_PARAM_INVALID, "aclrtFree: not the start of a live device allocation");
    }
    return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (const int32_t status = twin::CheckReady("aclrtMemcpy"); status != ACL_SUCCESS) {
        return status;
    }
    if (dst == nullptr || src == nullptr) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: dst and src must not be null");
    }
    if (count > destMax) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: count " + std::to_string(count) +
                                                  " exceeds destMax " + std::to_string(destMax));
    }
    const int32_t rawKind = twin::RawEnum(kind);
    if (rawKind < ACL_MEMCPY_HOST_TO_HOST || rawKind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
        return Error(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: unknown kind " + std::to_string(rawKind));
    }
    const bool dstOnDevice = rawKind == ACL_MEMCPY_HOST_TO_DEVICE || rawKind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    const bool srcOnDevice = rawKind == ACL_MEMCPY_DEVICE_TO_HOST || rawKind == ACL_MEMCPY_DEVICE_TO_DEVICE;
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
