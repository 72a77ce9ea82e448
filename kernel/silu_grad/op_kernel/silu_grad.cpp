// Kernel entry of SiluGrad: one call per vector core (blockDim of them).
//
// The build compiles this file once per dtype with DTYPE_X set to float, half or bfloat16_t,
// as for MishGrad (kernel/mish_grad/op_kernel/mish_grad.cpp).
#include "silu_grad.h"

extern "C" __global__ __aicore__ void silu_grad(GM_ADDR grad, GM_ADDR x, GM_ADDR xGrad, GM_ADDR workspace,
                                                GM_ADDR tiling)
{
    (void)workspace;  // SiluGrad needs no workspace of its own
    REGISTER_TILING_DEFAULT(SiluGradTilingData);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    GET_TILING_DATA_WITH_STRUCT(SiluGradTilingData, tilingData, tiling);
    silugrad::SiluGradKernel<DTYPE_X> kernel;
    kernel.Init(grad, x, xGrad, tilingData);
    kernel.Process();
}
