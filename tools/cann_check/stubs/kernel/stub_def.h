// NOT CANN: a minimal stand-in for tikicpulib's stub_def.h, for `make cann-check` only.
//
// tikicpulib ships only inside the CANN toolkit (tools/tikicpulib); CANN's AscendC headers
// include stub_def.h in CPU-debug mode (ASCENDC_CPU_DEBUG) to get what the bisheng compiler
// otherwise builds in: the kernel-language qualifiers, the scalar types, the pipe and event
// enums, the intrinsics, and a few globals of the CPU simulator. Nothing here declares an
// AscendC API: those come from CANN's real headers, which is what the check is about.
#ifndef MISHGRAD_CANN_CHECK_STUB_DEF_H
#define MISHGRAD_CANN_CHECK_STUB_DEF_H

#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

// Qualifiers and attributes of the kernel language: empty on the host, as in CPU debug mode.
#define __global__
#define __aicore__
#define __host__
#define __host_aicore__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __biasbuf__
#define __ssbuf__
#define __callee__
#define __simd_callee__
#define __simd_vf__
#define __simt_callee__
#define __VEC_SCOPE__
#define __BLOCK_LOCAL__
#define __WORKGROUP_LOCAL__
#define __sync_alias__
#define __sync_noalias__
#define __check_sync_alias__
#define __disable_kernel_type_autoinfer__
#define __in_pipe__(...)
#define __out_pipe__(...)
#define __inout_pipe__(...)
#define ASCENDC_HOST
#define ASCENDC_AICORE
#define ASCENDC_HOST_AICORE

#include "kernel_fp16.h"  // half, bfloat16_t

// The 8-bit and 4-bit float types the headers name (bisheng builtins); MishGrad uses none.
#define MISHGRAD_CANN_CHECK_BYTE_TYPE(type)      \
    struct type {                                \
        uint8_t bits = 0;                        \
        type() = default;                        \
        type(float) {}                           \
        operator float() const { return 0.0f; } \
    }
MISHGRAD_CANN_CHECK_BYTE_TYPE(fp8_e4m3fn_t);
MISHGRAD_CANN_CHECK_BYTE_TYPE(fp8_e5m2_t);
MISHGRAD_CANN_CHECK_BYTE_TYPE(fp8_e8m0_t);
MISHGRAD_CANN_CHECK_BYTE_TYPE(hifloat8_t);
MISHGRAD_CANN_CHECK_BYTE_TYPE(fp4x2_e2m1_t);
MISHGRAD_CANN_CHECK_BYTE_TYPE(fp4x2_e1m2_t);
MISHGRAD_CANN_CHECK_BYTE_TYPE(int4x2_t);

// The hardware pipes and synchronisation events (bisheng enums; only the names matter).
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX };
enum event_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

// Globals of tikicpulib's CPU simulator that the headers read.
extern int64_t block_idx;
extern int64_t block_num;
extern int64_t sub_block_idx;
extern int32_t g_coreType;
extern int32_t g_taskRation;
extern uint64_t g_fixpipeNdNzParam;
namespace AscendC {
constexpr int32_t AIC_TYPE = 1;
constexpr int32_t AIV_TYPE = 2;
extern bool g_isVdeq;
}  // namespace AscendC

#include "stub_fun.h"  // the intrinsics

#endif  // MISHGRAD_CANN_CHECK_STUB_DEF_H
