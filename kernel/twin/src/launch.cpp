// Launching mish_grad on the twin's virtual cores, and the C functions around it.
#include <algorithm>
#include <cstring>
#include <thread>
#include <mutex>
#include <string>
#include <vector>

#include "mish_grad_tiling.h"
#include "mish_grad_tiling_data.h"
#include "twin/capi.h"
#include "twin/runtime.h"

// The kernel entry, compiled once per dtype (see kernel/mish_grad/op_kernel/mish_grad.cpp). Weak: a
// library built for one dtype (what mishgrad.kernel.twin.run_kernel needs, so that an edit
// recompiles one instantiation) leaves the others null.
#define MISHGRAD_ENTRY(name)                                                                                \
    extern "C" __attribute__((weak)) void name(uint8_t* grad, uint8_t* x, uint8_t* tanhx, uint8_t* xGrad, \
                                               uint8_t* workspace, uint8_t* tiling)
MISHGRAD_ENTRY(mish_grad_float);
MISHGRAD_ENTRY(mish_grad_half);
MISHGRAD_ENTRY(mish_grad_bfloat16);

namespace {

using Entry = void (*)(uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*);

struct Launch {
    Entry entry;
    uint8_t* grad;
    uint8_t* x;
    uint8_t* tanhx;
    uint8_t* xGrad;
    uint8_t* workspace;  // the kernel's own (null: none, as in a direct launch)
    MishGradTilingData tiling;
};

void RunKernel(void* arguments)
{
    auto* launch = static_cast<Launch*>(arguments);
    launch->entry(launch->grad, launch->x, launch->tanhx, launch->xGrad, launch->workspace,
                  reinterpret_cast<uint8_t*>(&launch->tiling));
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

// aclDataType values (CANN runtime, include/external/acl/acl_base.h) -> kernel entry and
// element size.
bool EntryFor(int32_t dtype, Entry* entry, uint32_t* size)
{
    switch (dtype) {
        case 0: *entry = mish_grad_float; *size = 4; break;
        case 1: *entry = mish_grad_half; *size = 2; break;
        case 27: *entry = mish_grad_bfloat16; *size = 2; break;
        default: return false;
    }
    return *entry != nullptr;
}

}  // namespace

extern "C" int32_t mishgrad_tiling(uint64_t totalLength, uint32_t dtypeSize, int32_t hasTanhx, uint64_t ubBytes,
                                   uint32_t coreCount, int32_t selectUsesScratch, MishGradTilingData* out)
{
    if (out == nullptr) {
        return -1;
    }
    return static_cast<int32_t>(mishgrad::ComputeTiling(totalLength, dtypeSize, hasTanhx != 0, ubBytes, coreCount,
                                                        selectUsesScratch != 0, out));
}

namespace {

// Runs the kernel with a given tiling; the regions are the tensors' exact bytes.
std::string RunWithTiling(const Launch& launch, uint32_t size, const twin::Platform& platform, uint32_t hostThreads,
                          bool tracing, std::vector<twin::TraceEvent>* trace, std::string* log = nullptr)
{
    const uint64_t bytes = launch.tiling.totalLength * size;
    std::vector<twin::GmRegion> regions = {
        {launch.grad, bytes, "grad"}, {launch.x, bytes, "x"}, {launch.xGrad, bytes, "x_grad"}};
    if (launch.tiling.hasTanhx != 0) {
        regions.push_back({launch.tanhx, bytes, "tanhx"});
    }
    if (launch.workspace != nullptr) {
        regions.push_back({launch.workspace, mishgrad::kStampBytes, "workspace"});
    }
    if (hostThreads == 0) {
        hostThreads = std::max(1u, std::thread::hardware_concurrency());
    }
    Launch copy = launch;
    return twin::RunOnCores(RunKernel, &copy, launch.tiling.blockDim, hostThreads, platform, regions, tracing, trace,
                            log);
}

}  // namespace

uint64_t twin::KernelWorkspaceBytes() { return mishgrad::kStampBytes; }

std::string twin::LaunchMishGrad(int32_t dtype, void* grad, void* x, void* tanhx, void* xGrad, void* workspace,
                                 uint64_t n, const LaunchPlatform& platform, bool tracing,
                                 std::vector<TraceEvent>* trace)
{
    Launch launch{};
    uint32_t size = 0;
    if (!EntryFor(dtype, &launch.entry, &size)) {
        return "dtype " + std::to_string(dtype) + " has no kernel";
    }
    // A platform whose Select has a scratch area starts it below the top of UB.
    const bool selectUsesScratch = platform.selectScratchBegin != 0 && platform.selectScratchBegin < platform.ubBytes;
    const mishgrad::TilingStatus status = mishgrad::ComputeTiling(
        n, size, tanhx != nullptr, platform.ubReported, platform.vectorCores, selectUsesScratch, &launch.tiling);
    if (status != mishgrad::TilingStatus::kOk) {
        return "the tiling failed with status " + std::to_string(static_cast<int32_t>(status));
    }
    // The aclnn ABI has no place for a numerics model: the environment chooses it.
    twin::Numerics numerics = twin::Numerics::kIeee;
    std::string error;
    if (!twin::NumericsFromEnvironment(&numerics, &error)) {
        return error;
    }
    launch.grad = static_cast<uint8_t*>(grad);
    launch.x = static_cast<uint8_t*>(x);
    launch.tanhx = static_cast<uint8_t*>(tanhx);
    launch.xGrad = static_cast<uint8_t*>(xGrad);
    launch.workspace = static_cast<uint8_t*>(workspace);
    return RunWithTiling(launch, size, twin::Platform{platform.ubBytes, platform.selectScratchBegin, numerics},
                         platform.hostThreads, tracing, trace);
}

extern "C" int32_t mishgrad_twin_launch(int32_t dtype, const void* grad, const void* x, const void* tanhx,
                                        void* xGrad, const MishGradTilingData* tiling,
                                        const MishGradTwinConfig* config)
{
    Launch launch{};
    uint32_t size = 0;
    if (!EntryFor(dtype, &launch.entry, &size)) {
        return Finish(kTwinBadArgument,
                      "dtype " + std::to_string(dtype) +
                          " is not float (0), float16 (1) or bfloat16 (27), or this library was built "
                          "without its kernel");
    }
    if (grad == nullptr || x == nullptr || xGrad == nullptr || tiling == nullptr || config == nullptr) {
        return Finish(kTwinBadArgument, "grad, x, xGrad, tiling and config must not be null");
    }
    if (tiling->hasTanhx != 0 && tanhx == nullptr) {
        return Finish(kTwinBadArgument, "the tiling says tanhx is present but tanhx is null");
    }
    if (tiling->blockDim == 0 || config->ubBytes == 0 || config->ubBytes % 32 != 0) {
        return Finish(kTwinBadArgument, "blockDim must be positive and ubBytes a positive multiple of 32");
    }
    if (config->numerics >= twin::kNumericsCount) {
        return Finish(kTwinBadArgument, "numerics is " + std::to_string(config->numerics) +
                                            ", not ieee (0), hardware (1) or adversarial (2)");
    }
    launch.grad = static_cast<uint8_t*>(const_cast<void*>(grad));
    launch.x = static_cast<uint8_t*>(const_cast<void*>(x));
    launch.tanhx = static_cast<uint8_t*>(const_cast<void*>(tanhx));
    launch.xGrad = static_cast<uint8_t*>(xGrad);
    launch.tiling = *tiling;
    const twin::Platform platform{config->ubBytes, config->selectScratchBegin,
                                  static_cast<twin::Numerics>(config->numerics)};
    std::vector<twin::TraceEvent> trace;
    std::string log;
    const std::string error =
        RunWithTiling(launch, size, platform, config->hostThreads, config->trace != 0, &trace, &log);
    return Finish(error.empty() ? kTwinOk : kTwinKernelError, error, std::move(trace), std::move(log));
}

static_assert(kNumericsIeee == static_cast<uint32_t>(twin::Numerics::kIeee) &&
                  kNumericsHardware == static_cast<uint32_t>(twin::Numerics::kHardware) &&
                  kNumericsAdversarial == static_cast<uint32_t>(twin::Numerics::kAdversarial),
              "MishGradTwinNumerics numbers the models as twin::Numerics does");

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
