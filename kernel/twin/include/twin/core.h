// The CPU twin's machine model: virtual cores, their Unified Buffer, the global-memory
// regions the host registered, errors and the trace.
//
// Each virtual core runs on a host thread with its own CoreContext (its UB is a byte array
// of the platform's size). AscendC calls find their core through a thread-local pointer.
// A rule the hardware would break silently (a partial 32-byte block, a read past a
// tensor's end, ...) throws KernelError; the launcher turns that into an error code and
// a message, so a misbehaving kernel never takes the host process down.
#ifndef MISHGRAD_TWIN_CORE_H
#define MISHGRAD_TWIN_CORE_H

#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "twin/numerics.h"

namespace twin {

class KernelError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws KernelError("<api>: <what>") tagged with the current core.
[[noreturn]] void Fail(const char* api, const std::string& what);

// The platform as the twin models it.
struct Platform {
    uint64_t ubBytes;             // physical UB per vector core
    uint64_t selectScratchBegin;  // Select's tensor modes use [this, ubBytes); 0: no such area
    Numerics numerics = Numerics::kIeee;  // how Exp and Div round (twin/numerics.h)
};

// One recorded API call. Offsets are UB byte offsets, or -1 where not applicable.
struct TraceEvent {
    uint32_t core;
    uint32_t sequence;  // per core, in program order
    char op[24];
    uint64_t count;     // elements (vector ops, copies) or buffers (InitBuffer)
    uint64_t bytes;     // bytes moved or allocated
    int64_t dst;
    int64_t src0;
    int64_t src1;
    int64_t gmOffset;   // for copies: byte offset into the tensor the host passed; else -1
};

// Lifecycle of a queue buffer; LocalTensors of a queue point at their slot's state so that
// using a buffer after FreeTensor is caught.
enum class SlotState : uint8_t { kFree, kAllocated, kQueued, kDequeued };

// Frees UB storage allocated with 32-byte alignment.
struct AlignedDelete {
    void operator()(uint8_t* bytes) const { ::operator delete[](bytes, std::align_val_t{32}); }
};

// One scalar write to global memory held in a core's data cache.
struct PendingGmWrite {
    uint8_t* address;
    uint8_t bytes[8];
    uint32_t size;
};

// The data cache's line: the unit in which it writes back to global memory.
constexpr uint64_t kCacheLineBytes = 64;

// Writes back the current core's cached writes to addresses in [begin, end) to global memory.
void WriteBackDataCache(uintptr_t begin, uintptr_t end);

struct CoreContext {
    uint32_t blockIdx = 0;
    uint32_t blockDim = 0;
    Platform platform{};
    std::unique_ptr<uint8_t[], AlignedDelete> ub;  // 32-byte aligned, platform.ubBytes long
    uint64_t ubTop = 0;             // bytes allocated by the TPipe so far
    bool pipeActive = false;
    bool tracing = false;
    uint32_t sequence = 0;
    std::vector<TraceEvent> trace;
    std::string log;  // what printf and DumpTensor wrote on this core, in program order
    // Scalar writes to global memory (GlobalTensor::SetValue) still in the core's data cache:
    // they reach global memory when DataCacheCleanAndInvalid writes their 64-byte line back.
    std::vector<PendingGmWrite> dataCache;
};

CoreContext& Current();  // fails outside a kernel launch

// A global-memory region the host handed to the launch (a tensor's buffer).
struct GmRegion {
    const uint8_t* begin;
    uint64_t bytes;
    const char* name;
};

// The registered region that contains [address, address + bytes), or nullptr.
const GmRegion* FindRegion(const void* address, uint64_t bytes);

// Where each core's progress is published while a launch runs: one slot per core, in memory
// another process may read (the isolated runner's watchdog). After a crash or a hang, the
// slots say which AscendC call each core made last.
struct ProgressSlot {
    uint64_t calls;  // AscendC calls the core has made in this launch
    char op[24];     // the last one's name
};

// Publishes progress into `slots` (one per core index below `count`) from now on; nullptr
// stops it.
void SetProgressBoard(ProgressSlot* slots, uint32_t count);

// Appends an event to the current core's trace when tracing is on, and publishes the call on
// the progress board when there is one.
void Record(const char* op, uint64_t count, uint64_t bytes, int64_t dst, int64_t src0 = -1,
            int64_t src1 = -1, int64_t gmOffset = -1);

// Appends text to the current core's debug log (printf, DumpTensor).
void Log(const std::string& text);

// One argument of AscendC::printf, reduced to what a conversion can print. An integer keeps
// its value (signedValue) and its bits at its own width (unsignedValue), for %d and %u/%x.
struct PrintArgument {
    enum class Kind : uint8_t { kSigned, kUnsigned, kFloat, kString, kPointer } kind;
    int64_t signedValue = 0;
    uint64_t unsignedValue = 0;
    double floatValue = 0.0;
    const char* text = nullptr;
    const void* pointer = nullptr;
};

// Formats `format` with `arguments` as AscendC::printf documents it (conversions d i u x f F s
// p, with l/ll length modifiers, flags, width and precision) and logs it after the core's
// "[AIV Block i/n] " prefix. Fails on an unknown conversion, a count mismatch, or an argument
// whose kind the conversion cannot print.
void Printf(const char* format, const std::vector<PrintArgument>& arguments);

// Runs `kernel` once per virtual core on up to `hostThreads` threads. Returns the first error
// (by core index) or an empty string. Registers `regions` for the duration of the run. If
// `log` is given, it receives every core's debug log, core 0 first, whatever the threads'
// timing; a core that failed contributes what it logged before the failure.
using KernelBody = void (*)(void* arguments);
std::string RunOnCores(KernelBody kernel, void* arguments, uint32_t blockDim, uint32_t hostThreads,
                       const Platform& platform, const std::vector<GmRegion>& regions, bool tracing,
                       std::vector<TraceEvent>* trace, std::string* log = nullptr);

}  // namespace twin

#endif  // MISHGRAD_TWIN_CORE_H
