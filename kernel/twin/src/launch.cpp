// Launching any kernel entry on the twin's virtual cores, and the C functions around it.
#include "twin/launch.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "twin/capi.h"

namespace {

// Calls `entry` with the first sizeof...(I) of `arguments`: the entry's own signature, which
// only its argument count distinguishes (every argument is a GM_ADDR).
template <size_t... I>
void CallWith(twin::KernelEntry entry, uint8_t* const* arguments, std::index_sequence<I...>)
{
    using Typed = void (*)(decltype((void)I, static_cast<uint8_t*>(nullptr))...);
    reinterpret_cast<Typed>(entry)(arguments[I]...);
}

using Caller = void (*)(twin::KernelEntry, uint8_t* const*);

template <size_t... N>
constexpr std::array<Caller, sizeof...(N)> Callers(std::index_sequence<N...>)
{
    return {[](twin::KernelEntry entry, uint8_t* const* arguments) {
        CallWith(entry, arguments, std::make_index_sequence<N>{});
    }...};
}

// Callers()[n] calls an entry of n arguments.
constexpr auto kCallers = Callers(std::make_index_sequence<twin::kMaxEntryArguments + 1>{});

void RunCore(void* launch)
{
    const auto& entry = *static_cast<const twin::EntryLaunch*>(launch);
    kCallers[entry.arguments.size()](entry.entry, entry.arguments.data());
}

struct LastLaunch {
    std::mutex mutex;
    std::string error;
    std::vector<twin::TraceEvent> trace;
    std::string log;
};

LastLaunch& Last()
{
    static LastLaunch last;
    return last;
}

int32_t Finish(int32_t status, const std::string& error, std::vector<twin::TraceEvent> trace = {},
               std::string log = {})
{
    LastLaunch& last = Last();
    std::lock_guard<std::mutex> lock(last.mutex);
    last.error = error;
    last.trace = std::move(trace);
    last.log = std::move(log);
    return status;
}

// What is wrong with a launch before it runs, or "".
std::string Malformed(const twin::EntryLaunch& launch)
{
    if (launch.entry == nullptr) {
        return "the kernel entry is null (was the library built without it?)";
    }
    if (launch.arguments.size() > twin::kMaxEntryArguments) {
        return "a kernel entry takes at most " + std::to_string(twin::kMaxEntryArguments) + " arguments, not " +
               std::to_string(launch.arguments.size());
    }
    if (launch.blockDim == 0) {
        return "blockDim must be positive";
    }
    return "";
}

}  // namespace

std::string twin::RunEntry(const EntryLaunch& launch, const Platform& platform, uint32_t hostThreads, bool tracing,
                           std::vector<TraceEvent>* trace, std::string* log)
{
    if (std::string wrong = Malformed(launch); !wrong.empty()) {
        return wrong;
    }
    if (hostThreads == 0) {
        hostThreads = std::max(1u, std::thread::hardware_concurrency());
    }
    EntryLaunch copy = launch;  // each core reads the same arguments
    return RunOnCores(RunCore, &copy, launch.blockDim, hostThreads, platform, launch.regions, tracing, trace, log);
}

std::string twin::RunOnLaunchPlatform(const EntryLaunch& launch, const LaunchPlatform& platform)
{
    Numerics numerics = Numerics::kIeee;
    std::string error;
    if (!NumericsFromEnvironment(&numerics, &error)) {
        return error;
    }
    return RunEntry(launch, Platform{platform.ubBytes, platform.selectScratchBegin, numerics}, platform.hostThreads,
                    false, nullptr);
}

extern "C" int32_t mishgrad_twin_run(void (*entry)(void), uint8_t* const* arguments, uint32_t argumentCount,
                                     uint32_t blockDim, const TwinRegion* regions, uint32_t regionCount,
                                     const TwinConfig* config)
{
    if (config == nullptr || (arguments == nullptr && argumentCount > 0) ||
        (regions == nullptr && regionCount > 0)) {
        return Finish(kTwinBadArgument, "config must not be null, nor arguments and regions when counted");
    }
    if (config->ubBytes == 0 || config->ubBytes % 32 != 0) {
        return Finish(kTwinBadArgument, "ubBytes must be a positive multiple of 32");
    }
    if (config->numerics >= twin::kNumericsCount) {
        return Finish(kTwinBadArgument, "numerics is " + std::to_string(config->numerics) +
                                            ", not ieee (0), hardware (1) or adversarial (2)");
    }
    twin::EntryLaunch launch{entry, {arguments, arguments + argumentCount}, {}, blockDim};
    if (std::string wrong = Malformed(launch); !wrong.empty()) {
        return Finish(kTwinBadArgument, wrong);
    }
    for (uint32_t i = 0; i < regionCount; ++i) {
        launch.regions.push_back({static_cast<const uint8_t*>(regions[i].address), regions[i].bytes, regions[i].name});
    }
    const twin::Platform platform{config->ubBytes, config->selectScratchBegin,
                                  static_cast<twin::Numerics>(config->numerics)};
    std::vector<twin::TraceEvent> trace;
    std::string log;
    const std::string error = twin::RunEntry(launch, platform, config->hostThreads, config->trace != 0, &trace, &log);
    return Finish(error.empty() ? kTwinOk : kTwinKernelError, error, std::move(trace), std::move(log));
}

static_assert(kNumericsIeee == static_cast<uint32_t>(twin::Numerics::kIeee) &&
                  kNumericsHardware == static_cast<uint32_t>(twin::Numerics::kHardware) &&
                  kNumericsAdversarial == static_cast<uint32_t>(twin::Numerics::kAdversarial),
              "TwinNumerics numbers the models as twin::Numerics does");

extern "C" int32_t mishgrad_twin_exp(const float* x, float* out, uint64_t n, uint32_t numerics)
{
    if (numerics >= twin::kNumericsCount || (n > 0 && (x == nullptr || out == nullptr))) {
        return kTwinBadArgument;
    }
    for (uint64_t i = 0; i < n; ++i) {
        out[i] = twin::ModelExp(x[i], static_cast<twin::Numerics>(numerics));
    }
    return kTwinOk;
}

extern "C" int32_t mishgrad_twin_div(const float* a, const float* b, float* out, uint64_t n, uint32_t numerics)
{
    if (numerics >= twin::kNumericsCount || (n > 0 && (a == nullptr || b == nullptr || out == nullptr))) {
        return kTwinBadArgument;
    }
    for (uint64_t i = 0; i < n; ++i) {
        out[i] = twin::ModelDiv(a[i], b[i], static_cast<twin::Numerics>(numerics));
    }
    return kTwinOk;
}

extern "C" void mishgrad_twin_set_progress(twin::ProgressSlot* slots, uint32_t count)
{
    twin::SetProgressBoard(slots, count);
}

extern "C" const char* mishgrad_twin_last_error(void)
{
    return Last().error.c_str();
}

extern "C" const char* mishgrad_twin_log(void)
{
    return Last().log.c_str();
}

extern "C" uint64_t mishgrad_twin_trace_size(void)
{
    return Last().trace.size();
}

extern "C" uint64_t mishgrad_twin_trace_copy(twin::TraceEvent* destination, uint64_t capacity)
{
    const std::vector<twin::TraceEvent>& trace = Last().trace;
    const uint64_t count = trace.size() < capacity ? trace.size() : capacity;
    if (destination != nullptr && count > 0) {
        std::memcpy(destination, trace.data(), count * sizeof(twin::TraceEvent));
    }
    return count;
}
