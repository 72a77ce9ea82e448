// Virtual cores, global-memory registry, errors and trace of the CPU twin (see core.h).
#include "twin/core.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

namespace twin {
namespace {

thread_local CoreContext* tCurrent = nullptr;

// The regions of the launch in progress. Written before the cores start and read-only
// while they run, so the cores read it without a lock.
std::vector<GmRegion> gRegions;

// The progress board (SetProgressBoard): written by each core into its own slot only.
ProgressSlot* gProgress = nullptr;
uint32_t gProgressCount = 0;

// Bytes a fresh UB holds: all ones, a NaN in every float format, so that a kernel which
// computes on data it never copied in shows NaN instead of plausible zeros.
constexpr uint8_t kUbFill = 0xFF;

}  // namespace

void Fail(const char* api, const std::string& what)
{
    const std::string where = tCurrent ? " (core " + std::to_string(tCurrent->blockIdx) + ")" : "";
    throw KernelError(std::string(api) + ": " + what + where);
}

CoreContext& Current()
{
    if (tCurrent == nullptr) {
        throw KernelError("AscendC API called outside a kernel launch");
    }
    return *tCurrent;
}

const GmRegion* FindRegion(const void* address, uint64_t bytes)
{
    const auto* begin = static_cast<const uint8_t*>(address);
    for (const GmRegion& region : gRegions) {
        if (begin >= region.begin && bytes <= region.bytes &&
            static_cast<uint64_t>(begin - region.begin) <= region.bytes - bytes) {
            return &region;
        }
    }
    return nullptr;
}

void SetProgressBoard(ProgressSlot* slots, uint32_t count)
{
    gProgress = slots;
    gProgressCount = slots == nullptr ? 0 : count;
}

void Record(const char* op, uint64_t count, uint64_t bytes, int64_t dst, int64_t src0, int64_t src1,
            int64_t gmOffset)
{
    CoreContext& core = Current();
    if (core.blockIdx < gProgressCount) {
        // Another process reads the slot while this core runs: the name first, then the count
        // (release), so a reader that sees the new count sees the new name.
        ProgressSlot& slot = gProgress[core.blockIdx];
        std::strncpy(slot.op, op, sizeof(slot.op) - 1);
        __atomic_store_n(&slot.calls, slot.calls + 1, __ATOMIC_RELEASE);
    }
    if (!core.tracing) {
        return;
    }
    TraceEvent event{};
    event.core = core.blockIdx;
    event.sequence = core.sequence++;
    std::strncpy(event.op, op, sizeof(event.op) - 1);
    event.count = count;
    event.bytes = bytes;
    event.dst = dst;
    event.src0 = src0;
    event.src1 = src1;
    event.gmOffset = gmOffset;
    core.trace.push_back(event);
}

void Log(const std::string& text) { Current().log += text; }

void WriteBackDataCache(uintptr_t begin, uintptr_t end)
{
    std::vector<PendingGmWrite>& cache = Current().dataCache;
    std::vector<PendingGmWrite> kept;
    for (const PendingGmWrite& write : cache) {  // in program order: a later write wins
        const auto address = reinterpret_cast<uintptr_t>(write.address);
        if (address >= begin && address + write.size <= end) {
            std::memcpy(write.address, write.bytes, write.size);
        } else {
            kept.push_back(write);
        }
    }
    cache = std::move(kept);
}

namespace {

using Kind = PrintArgument::Kind;

// One conversion of a printf format: the text of the spec as written ("%-8.3lf") and its
// conversion letter.
struct Conversion {
    std::string spec;
    char letter;
};

// Reads the conversion that starts at format[at] == '%'; advances `at` past it.
Conversion ReadConversion(const char* format, size_t& at)
{
    const size_t begin = at++;
    while (format[at] != '\0' && std::strchr("-+ #0", format[at]) != nullptr) {
        ++at;
    }
    while (format[at] >= '0' && format[at] <= '9') {
        ++at;
    }
    if (format[at] == '.') {
        ++at;
        while (format[at] >= '0' && format[at] <= '9') {
            ++at;
        }
    }
    const size_t lengthBegin = at;
    while (format[at] == 'l') {
        ++at;
    }
    if (at - lengthBegin > 2 || format[at] == '\0' || std::strchr("diuxfFsp", format[at]) == nullptr) {
        const std::string written(format + begin, format[at] == '\0' ? at : at + 1);
        Fail("printf", "conversion '" + written + "' is not one AscendC documents (%d %i %u %x %f %F %s %p, "
                       "with l or ll for integers)");
    }
    // The length modifier only says how wide the C argument was; the value is already 64-bit.
    std::string spec(format + begin, format + lengthBegin);
    return Conversion{spec, format[at++]};
}

std::string FormatOne(const Conversion& conversion, const PrintArgument& argument, size_t index)
{
    const auto mismatch = [&](const char* wanted) {
        Fail("printf", "argument " + std::to_string(index + 1) + " does not fit %" + std::string(1, conversion.letter) +
                           " (" + wanted + ")");
    };
    char buffer[512];
    const char letter = conversion.letter;
    if (letter == 'f' || letter == 'F') {
        if (argument.kind != Kind::kFloat) {
            mismatch("it prints float, half or bfloat16_t");
        }
        std::snprintf(buffer, sizeof(buffer), (conversion.spec + letter).c_str(), argument.floatValue);
    } else if (letter == 's') {
        if (argument.kind != Kind::kString || argument.text == nullptr) {
            mismatch("it prints a string, not a null pointer");
        }
        std::snprintf(buffer, sizeof(buffer), (conversion.spec + 's').c_str(), argument.text);
    } else if (letter == 'p') {
        if (argument.kind != Kind::kPointer && argument.kind != Kind::kString) {
            mismatch("it prints a pointer");
        }
        const void* pointer = argument.kind == Kind::kPointer ? argument.pointer : argument.text;
        std::snprintf(buffer, sizeof(buffer), (conversion.spec + 'p').c_str(), pointer);
    } else {
        if (argument.kind != Kind::kSigned && argument.kind != Kind::kUnsigned) {
            mismatch("it prints an integer");
        }
        // %d and %i print the value; %u and %x its bits at the argument's own width, as C does.
        const std::string spec = conversion.spec + "ll" + letter;
        if (letter == 'd' || letter == 'i') {
            std::snprintf(buffer, sizeof(buffer), spec.c_str(), static_cast<long long>(argument.signedValue));
        } else {
            std::snprintf(buffer, sizeof(buffer), spec.c_str(), static_cast<unsigned long long>(argument.unsignedValue));
        }
    }
    return buffer;
}

}  // namespace

void Printf(const char* format, const std::vector<PrintArgument>& arguments)
{
    if (format == nullptr) {
        Fail("printf", "the format is a null pointer");
    }
    const CoreContext& core = Current();
    std::string text = "[AIV Block " + std::to_string(core.blockIdx) + "/" + std::to_string(core.blockDim) + "] ";
    size_t used = 0;
    size_t conversions = 0;
    for (size_t at = 0; format[at] != '\0';) {
        if (format[at] != '%') {
            text += format[at++];
        } else if (format[at + 1] == '%') {
            text += '%';
            at += 2;
        } else {
            const Conversion conversion = ReadConversion(format, at);
            if (conversions++ < arguments.size()) {
                text += FormatOne(conversion, arguments[used], used);
                ++used;
            }
        }
    }
    if (conversions != arguments.size()) {
        Fail("printf", "the format has " + std::to_string(conversions) + " conversions but " +
                           std::to_string(arguments.size()) + " arguments were passed");
    }
    Log(text);
}

namespace {

struct CoreOutcome {
    std::string error;
    std::vector<TraceEvent> trace;
    std::string log;
};

void RunOneCore(KernelBody kernel, void* arguments, uint32_t index, uint32_t blockDim,
                const Platform& platform, bool tracing, CoreOutcome* outcome)
{
    CoreContext core;
    core.blockIdx = index;
    core.blockDim = blockDim;
    core.platform = platform;
    core.tracing = tracing;
    core.ub.reset(new (std::align_val_t{32}) uint8_t[platform.ubBytes]);
    std::memset(core.ub.get(), kUbFill, platform.ubBytes);
    tCurrent = &core;
    try {
        kernel(arguments);
        if (!core.dataCache.empty()) {
            Fail("GlobalTensor::SetValue",
                 std::to_string(core.dataCache.size()) +
                     " scalar writes to global memory were still in the data cache when the kernel ended: the "
                     "host is not guaranteed to see them. Write their cache line back with "
                     "DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>");
        }
    } catch (const std::bad_alloc&) {
        outcome->error = "the host ran out of memory while this core ran (std::bad_alloc): an allocation in the "
                         "kernel too large for this machine, or the trace of a long launch run with trace=True";
    } catch (const std::exception& error) {
        outcome->error = error.what();
    }
    tCurrent = nullptr;
    outcome->trace = std::move(core.trace);
    outcome->log = std::move(core.log);
}

}  // namespace

std::string RunOnCores(KernelBody kernel, void* arguments, uint32_t blockDim, uint32_t hostThreads,
                       const Platform& platform, const std::vector<GmRegion>& regions, bool tracing,
                       std::vector<TraceEvent>* trace, std::string* log)
{
    static std::mutex launchMutex;  // one launch at a time: the region registry is global
    std::lock_guard<std::mutex> lock(launchMutex);
    gRegions = regions;
    std::vector<CoreOutcome> outcomes(blockDim);
    std::atomic<uint32_t> next{0};
    auto worker = [&]() {
        for (uint32_t index = next++; index < blockDim; index = next++) {
            RunOneCore(kernel, arguments, index, blockDim, platform, tracing, &outcomes[index]);
        }
    };
    const uint32_t threads = std::max(1u, std::min(hostThreads, blockDim));
    std::vector<std::thread> pool;
    for (uint32_t i = 1; i < threads; ++i) {
        pool.emplace_back(worker);
    }
    worker();
    for (std::thread& thread : pool) {
        thread.join();
    }
    gRegions.clear();
    std::string firstError;
    for (CoreOutcome& outcome : outcomes) {
        if (firstError.empty() && !outcome.error.empty()) {
            firstError = outcome.error;
        }
        if (trace != nullptr) {
            trace->insert(trace->end(), outcome.trace.begin(), outcome.trace.end());
        }
        if (log != nullptr) {
            *log += outcome.log;
        }
    }
    return firstError;
}

}  // namespace twin
