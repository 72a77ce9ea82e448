// The kernel's stamp: proof, readable on the host, that this repository's kernel ran.
//
// On a CANN host the kernel that runs for op type MishGrad is chosen by nnopbase, not by the
// library that serves aclnnMishBackward, so the host cannot tell from the library which kernel
// ran. The kernel tells it: core 0 writes kStampBytes (mish_grad_tiling_data.h) at the start of
// its user workspace, which the tiling function asks for, and the caller, having zeroed the
// workspace, finds them there after the run. CANN's own MishGrad kernel writes no such bytes.
#ifndef MISHGRAD_STAMP_H
#define MISHGRAD_STAMP_H

#include <cstdint>

#include "kernel_operator.h"
#include "mish_grad_tiling_data.h"

namespace mishgrad {

// Words 0-1 the magic, 2 the version, 3 the element size, then the plan the kernel ran:
// blockDim, tileLength, hasTanhx and the low 32 bits of n.
template <typename T>
__aicore__ inline void WriteStamp(GM_ADDR userWorkspace, const MishGradTilingData& tiling)
{
    const uint32_t words[kStampWords] = {kStampMagicLow,     kStampMagicHigh,   kStampVersion,
                                         sizeof(T),          tiling.blockDim,   tiling.tileLength,
                                         tiling.hasTanhx,    static_cast<uint32_t>(tiling.totalLength)};
    AscendC::GlobalTensor<uint32_t> stamp;
    stamp.SetGlobalBuffer(reinterpret_cast<__gm__ uint32_t*>(userWorkspace), kStampWords);
    for (uint32_t i = 0; i < kStampWords; ++i) {
        stamp.SetValue(i, words[i]);  // a scalar write lands in the core's data cache ...
    }
    // ... and reaches global memory when its 64-byte cache line is written back (AscendC's
    // GlobalTensor::SetValue and DataCacheCleanAndInvalid pages).
    AscendC::DataCacheCleanAndInvalid<uint32_t, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                      AscendC::DcciDst::CACHELINE_OUT>(stamp);
}

}  // namespace mishgrad

#endif  // MISHGRAD_STAMP_H
