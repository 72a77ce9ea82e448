// The level-0 operator of MishGrad for CANN's op_api: one kernel launch on contiguous,
// same-dtype, same-shape tensors (builds on an Ascend host only).
#ifndef MISHGRAD_OP_API_MISH_GRAD_L0_H
#define MISHGRAD_OP_API_MISH_GRAD_L0_H

#include "opdev/op_executor.h"

namespace l0op {

// x_grad = grad * dMish/dx(x); tanhx may be nullptr (the kernel then computes t itself).
const aclTensor* MishGrad(const aclTensor* grad, const aclTensor* x, const aclTensor* tanhx, aclOpExecutor* executor);

}  // namespace l0op

#endif  // MISHGRAD_OP_API_MISH_GRAD_L0_H
