// Kernel unit test of MishGrad for the dtype CMakeLists.txt here gives the kernel (DTYPE_X:
// float), in the form of ops-nn's op_kernel tests; the case itself is mish_grad_case.h.
//
// The test and the kernel are separate translation units, as ops-nn's AddOpTestCase builds
// them: one object library of test_mish_grad*.cpp and the kernel file copied from op_kernel/,
// every source compiled with -include mish_grad_tiling_def.h and the test's -D options (ops-nn
// e5c3fa9, cmake/ut.cmake lines 636-637 and 700-748). So the kernel is declared here, not
// included. test_mish_grad_half.cpp and test_mish_grad_bfloat16.cpp compile it for the
// 16-bit dtypes.
#include "mish_grad_case.h"

extern "C" __global__ __aicore__ void mish_grad(GM_ADDR grad, GM_ADDR x, GM_ADDR tanhx, GM_ADDR xGrad,
                                                GM_ADDR workspace, GM_ADDR tiling);

namespace {

void Launch(uint32_t blockDim, const mishgrad_ut::KernelArgs& args)
{
    ICPU_RUN_KF(mish_grad, blockDim, args.grad, args.x, args.tanhx, args.xGrad, args.workspace, args.tiling);
}

}  // namespace

class mish_grad_test : public mishgrad_ut::KernelTest {};

TEST_F(mish_grad_test, test_case_without_tanhx)
{
    mishgrad_ut::RunCase<DTYPE_X>(Launch, mishgrad_ut::kManyTiles, false);
}

TEST_F(mish_grad_test, test_case_with_tanhx)
{
    mishgrad_ut::RunCase<DTYPE_X>(Launch, mishgrad_ut::kWithTanhx, true);
}
