// The C functions the twin library exports to Python (ctypes) for launching the kernel
// directly: tiling, launch, error message and trace. The aclnn ABI comes on top of these.
#ifndef MISHGRAD_TWIN_CAPI_H
#define MISHGRAD_TWIN_CAPI_H

#include <cstdint>

#include "mish_grad_tiling_data.h"
#include "twin/core.h"

extern "C" {

// How the twin models the platform and runs the launch.
struct MishGradTwinConfig {
    uint64_t ubBytes;             // physical UB per vector core
    uint64_t selectScratchBegin;  // start of Select's scratch area in UB (0: none)
    uint32_t hostThreads;         // host threads that run the virtual cores
    uint32_t trace;               // 1: record every API call
    uint32_t numerics;            // MishGradTwinNumerics: how Exp and Div round
};

// How the twin's Exp and Div round (twin/numerics.h gives the model and its sources).
enum MishGradTwinNumerics : uint32_t {
    kNumericsIeee = 0,         // libm expf, IEEE division (correctly rounded)
    kNumericsHardware = 1,     // faithful: either float32 neighbour of the exact value
    kNumericsAdversarial = 2,  // faithful, always the neighbour farther from the exact value
};

enum MishGradTwinStatus : int32_t {
    kTwinOk = 0,
    kTwinKernelError = 1,  // the kernel broke a rule of the hardware; see the message
    kTwinBadArgument = 2,  // the launch itself was malformed; see the message
};

// ComputeTiling of common/mish_grad_tiling.h; returns its TilingStatus.
int32_t mishgrad_tiling(uint64_t totalLength, uint32_t dtypeSize, int32_t hasTanhx, uint64_t ubBytes,
                        uint32_t coreCount, int32_t selectUsesScratch, MishGradTilingData* out);

// Runs mish_grad on tiling->blockDim virtual cores. dtype is an aclDataType value
// (0 float, 1 float16, 27 bfloat16); tanhx may be null when tiling->hasTanhx is 0.
int32_t mishgrad_twin_launch(int32_t dtype, const void* grad, const void* x, const void* tanhx, void* xGrad,
                             const MishGradTilingData* tiling, const MishGradTwinConfig* config);

// The twin's vector Exp (out = exp(x)) and Div (out = a / b) on n floats, rounded as
// `numerics` (a MishGradTwinNumerics) says: the arithmetic AscendC::Exp and AscendC::Div use,
// for comparison with mishgrad.math.vector_math. kTwinBadArgument for an unknown model.
int32_t mishgrad_twin_exp(const float* x, float* out, uint64_t n, uint32_t numerics);
int32_t mishgrad_twin_div(const float* a, const float* b, float* out, uint64_t n, uint32_t numerics);

// Publishes each core's AscendC calls into `slots` (count of them) during later launches, for
// a watchdog in another process (twin::ProgressSlot); nullptr stops it.
void mishgrad_twin_set_progress(twin::ProgressSlot* slots, uint32_t count);

// The message of the last failed launch ("" after a successful one).
const char* mishgrad_twin_last_error(void);

// What printf and DumpTensor wrote during the last launch, core 0 first (a failed launch
// keeps what its cores wrote before they stopped).
const char* mishgrad_twin_log(void);

// The trace of the last launch, ordered by core and then program order.
uint64_t mishgrad_twin_trace_size(void);
uint64_t mishgrad_twin_trace_copy(twin::TraceEvent* destination, uint64_t capacity);
}

#endif  // MISHGRAD_TWIN_CAPI_H
