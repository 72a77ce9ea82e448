// The level-0 operator of MishGrad for CANN's op_api: one kernel launch on contiguous,
// same-dtype, same-shape tensors (builds on an Ascend host only). Named after the op, as ops-nn
// names its level-0 files (cann/ops-nn e5c3fa9, experimental/activation/hard_swish_grad/op_host/
// op_api/hard_swish_grad.h, and experimental/activation/mish_grad/op_host/op_api/mish_grad.h).
#ifndef MISHGRAD_OP_API_MISH_GRAD_H
#define MISHGRAD_OP_API_MISH_GRAD_H

#include "opdev/op_executor.h"

namespace l0op {

// x_grad = grad * dMish/dx(x); tanhx may be nullptr (the kernel then computes t itself).
const aclTensor* MishGrad(const aclTensor* grad, const aclTensor* x, const aclTensor* tanhx, aclOpExecutor* executor);

}  // namespace l0op

#endif  // MISHGRAD_OP_API_MISH_GRAD_H
