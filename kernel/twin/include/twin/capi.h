// The C functions the twin library exports to Python (ctypes): a launch of any kernel entry on
// virtual cores, the twin's Exp and Div, and the error message, log and trace of the last
// launch. An operator's own exports (its tiling, its aclnn functions) come from its twin glue
// (the twin/ folder of the operator's folder); the aclnn ABI comes on top of these.
#ifndef MISHGRAD_TWIN_CAPI_H
#define MISHGRAD_TWIN_CAPI_H

#include <cstdint>

#include "twin/core.h"

extern "C" {

// How the twin models the platform and runs the launch.
struct TwinConfig {
    uint64_t ubBytes;             // physical UB per vector core
    uint64_t selectScratchBegin;  // start of Select's scratch area in UB (0: none)
    uint32_t hostThreads;         // host threads that run the virtual cores
    uint32_t trace;               // 1: record every API call
    uint32_t numerics;            // TwinNumerics: how Exp and Div round
};

// How the twin's Exp and Div round (twin/numerics.h gives the model and its sources).
enum TwinNumerics : uint32_t {
    kNumericsIeee = 0,         // libm expf, IEEE division (correctly rounded)
    kNumericsHardware = 1,     // faithful: either float32 neighbour of the exact value
    kNumericsAdversarial = 2,  // faithful, always the neighbour farther from the exact value
};

enum TwinStatus : int32_t {
    kTwinOk = 0,
    kTwinKernelError = 1,  // the kernel broke a rule of the hardware; see the message
    kTwinBadArgument = 2,  // the launch itself was malformed; see the message
};

// A tensor in global memory that a launch may touch: its exact bytes (what the twin's bounds
// checks allow) and its name (for messages).
struct TwinRegion {
    const void* address;
    uint64_t bytes;
    const char* name;
};

// Runs `entry`, a kernel entry `void entry(GM_ADDR...)` of `argumentCount` arguments (at most
// twin::kMaxEntryArguments), on `blockDim` virtual cores: each core calls it with `arguments`
// (the tensors' addresses, null for an absent one, then its workspace and its tiling data, as
// the entry declares them). `regions` are the tensors it may touch.
int32_t mishgrad_twin_run(void (*entry)(void), uint8_t* const* arguments, uint32_t argumentCount,
                          uint32_t blockDim, const TwinRegion* regions, uint32_t regionCount,
                          const TwinConfig* config);

// The twin's vector Exp (out = exp(x)) and Div (out = a / b) on n floats, rounded as
// `numerics` (a TwinNumerics) says: the arithmetic AscendC::Exp and AscendC::Div use,
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
