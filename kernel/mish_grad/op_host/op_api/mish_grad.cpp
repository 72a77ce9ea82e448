// The level-0 MishGrad: allocates the output and queues the AI Core kernel on the executor.
#include "mish_grad.h"

#include "opdev/make_op_executor.h"
#include "opdev/op_def.h"
#include "opdev/op_dfx.h"
#include "opdev/op_log.h"

using namespace op;

namespace l0op {

OP_TYPE_REGISTER(MishGrad);

const aclTensor* MishGrad(const aclTensor* grad, const aclTensor* x, const aclTensor* tanhx, aclOpExecutor* executor)
{
    L0_DFX(MishGrad, grad, x, tanhx);
    aclTensor* out = executor->AllocTensor(x->GetViewShape(), x->GetDataType(), Format::FORMAT_ND);
    if (out == nullptr) {
        return nullptr;
    }
    const aclnnStatus status = ADD_TO_LAUNCHER_LIST_AICORE(MishGrad, OP_INPUT(grad, x, tanhx), OP_OUTPUT(out));
    if (status != ACLNN_SUCCESS) {
        OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "MishGrad: queuing the AI Core kernel failed");
        return nullptr;
    }
    return out;
}

}  // namespace l0op
