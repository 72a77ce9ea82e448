// Kernel unit test of MishGrad for bfloat16: the kernel file compiled with DTYPE_X = bfloat16_t, its
// 16-bit path (inputs widened to float32, one rounding back) run on the case of
// mish_grad_case.h.
//
// ops-nn compiles every test_mish_grad*.cpp of this folder into the object library of its one
// AddOpTestCase (CMakeLists.txt here) with the same options, DTYPE_X=float, beside the kernel
// file compiled for that dtype, and links them into one program (ops-nn e5c3fa9,
// cmake/ut.cmake lines 700-748). So this file compiles the kernel file itself, from the copy of
// op_kernel/ on the test's include path, for its own dtype, and names the entry as the twin's
// build does for bfloat16 (mish_grad_bfloat16, common/mish_grad_dtypes.h) so that it does not
// collide with the float entry.
#include "mish_grad_case.h"

#undef DTYPE_X
#define DTYPE_X bfloat16_t
#define mish_grad mish_grad_bfloat16
#include "mish_grad.cpp"
#undef mish_grad
#undef DTYPE_X

namespace {

void Launch(uint32_t blockDim, const mishgrad_ut::KernelArgs& args)
{
    ICPU_RUN_KF(mish_grad_bfloat16, blockDim, args.grad, args.x, args.tanhx, args.xGrad, args.workspace, args.tiling);
}

}  // namespace

class mish_grad_bfloat16_test : public mishgrad_ut::KernelTest {};

TEST_F(mish_grad_bfloat16_test, test_case_without_tanhx)
{
    mishgrad_ut::RunCase<bfloat16_t>(Launch, mishgrad_ut::kManyTiles, false);
}

TEST_F(mish_grad_bfloat16_test, test_case_with_tanhx)
{
    mishgrad_ut::RunCase<bfloat16_t>(Launch, mishgrad_ut::kWithTanhx, true);
}
