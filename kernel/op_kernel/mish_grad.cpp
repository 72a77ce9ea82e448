// Kernel entry of MishGrad: one call per vector core (blockDim of them).
//
// The build compiles this file once per dtype with DTYPE_X set to float, half or
// bfloat16_t: CANN's op build does so from the op definition, the CPU twin with -D flags.
#include "mish_grad.h"

REGISTER_TILING_DEFAULT(MishGradTilingData);

extern "C" __global__ __aicore__ void mish_grad(GM_ADDR grad, GM_ADDR x, GM_ADDR tanhx, GM_ADDR xGrad,
                                                GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;  // MishGrad needs none
    GET_TILING_DATA_WITH_STRUCT(MishGradTilingData, tilingData, tiling);
    mishgrad::MishGradKernel<DTYPE_X> kernel;
    kernel.Init(grad, x, tanhx, xGrad, tilingData);
    kernel.Process();
}
