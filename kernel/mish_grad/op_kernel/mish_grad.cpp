// Kernel entry of MishGrad: one call per vector core (blockDim of them).
//
// The build compiles this file once per dtype with DTYPE_X set to float, half or
// bfloat16_t: CANN's op build does so from the op definition, the CPU twin with -D flags.
#include "mish_grad.h"
#include "mish_grad_stamp.h"

extern "C" __global__ __aicore__ void mish_grad(GM_ADDR grad, GM_ADDR x, GM_ADDR tanhx, GM_ADDR xGrad,
                                                GM_ADDR workspace, GM_ADDR tiling)
{
    // Both declarations stand inside the kernel function, as asc-devkit's pages show them
    // (asc-devkit 82b89a1, docs/zh/api/SIMD-API/基础API/Kernel-Tiling/: REGISTER_TILING_DEFAULT.md
    // lines 68-77; 设置Kernel类型.md lines 221-241). The tiling data is this C++ struct.
    REGISTER_TILING_DEFAULT(MishGradTilingData);
    // Vector work only: a launch starts vector cores and no Cube core (设置Kernel类型.md lines
    // 102-105). Atlas A2 supports KERNEL_TYPE_AIV_ONLY (lines 167-169), and asc-devkit's headers
    // define the macro for its architecture, 2201 (impl/basic_api/utils/kernel_utils_macros.h
    // lines 374-382).
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    GET_TILING_DATA_WITH_STRUCT(MishGradTilingData, tilingData, tiling);
    // Proof for the host that this kernel ran (mish_grad_stamp.h): core 0 stamps its workspace.
    if (workspace != nullptr && AscendC::GetBlockIdx() == 0) {
        mishgrad::WriteStamp<DTYPE_X>(AscendC::GetUserWorkspace(workspace), tilingData);
    }
    mishgrad::MishGradKernel<DTYPE_X> kernel;
    kernel.Init(grad, x, tanhx, xGrad, tilingData);
    kernel.Process();
}
