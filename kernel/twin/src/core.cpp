// Virtual cores, global-memory registry, errors and trace of the CPU twin (see core.h).
#include "twin/core.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

namespace twin {
namespace {

thread_local CoreContext* tCurrent = nullptr;

// The regions of the launch in progress. Written before the cores start and read-only
// while they run, so the cores read it without a lock.
std::vector<GmRegion> gRegions;

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

void Record(const char* op, uint64_t count, uint64_t bytes, int64_t dst, int64_t src0, int64_t src1,
            int64_t gmOffset)
{
    CoreContext& core = Current();
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

namespace {

struct CoreOutcome {
    std::string error;
    std::vector<TraceEvent> trace;
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
    } catch (const std::exception& error) {
        outcome->error = error.what();
    }
    tCurrent = nullptr;
    outcome->trace = std::move(core.trace);
}

}  // namespace

std::string RunOnCores(KernelBody kernel, void* arguments, uint32_t blockDim, uint32_t hostThreads,
                       const Platform& platform, const std::vector<GmRegion>& regions, bool tracing,
                       std::vector<TraceEvent>* trace)
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
    }
    return firstError;
}

}  // namespace twin
