// aclnnMishBackward for CANN: checks with the shared contract, then plans contiguous copies,
// casts to the promoted dtype, broadcasts, the kernel and the copy into gradInput's view
// (builds on an Ascend host only; the CPU twin implements the same plan in
// kernel/twin/src/aclnn.cpp, reached through twin/mish_grad_twin.cpp). It makes only the contract's checks, as ops-nn's adapter does;
// the twin's additional checks (a self-overlapping gradInput, stale handles, freed storage, a
// second run of an executor, a short workspace) are twin-only and have no counterpart here.
#include "aclnn_mish_backward.h"

#include <vector>

#include "../../common/mish_grad_contract.h"  // relative: common/ is on no ops-nn include path
#include "aclnn_kernels/cast.h"
#include "aclnn_kernels/contiguous.h"
#include "level0/broadcast_to.h"
#include "mish_grad.h"  // op_api/: its own folder comes first
#include "opdev/op_dfx.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"

using namespace op;

namespace {

mishgrad::TensorInfo Describe(const aclTensor* tensor)
{
    if (tensor == nullptr) {
        return {false, 0, {}};
    }
    const Shape& shape = tensor->GetViewShape();
    std::vector<int64_t> dims(shape.GetDimNum());
    for (size_t i = 0; i < dims.size(); ++i) {
        dims[i] = shape.GetDim(i);
    }
    return {true, static_cast<int32_t>(tensor->GetDataType()), dims};
}

// gradOutput or self, made contiguous, cast to the computation dtype and broadcast.
const aclTensor* Prepare(const aclTensor* tensor, DataType dtype, const std::vector<int64_t>& shape,
                         aclOpExecutor* executor)
{
    const aclTensor* contiguous = l0op::Contiguous(tensor, executor);
    if (contiguous == nullptr) {
        return nullptr;
    }
    const aclTensor* cast = l0op::Cast(contiguous, dtype, executor);
    if (cast == nullptr || Describe(cast).shape == shape) {
        return cast;
    }
    const aclIntArray* target = executor->AllocIntArray(shape.data(), shape.size());
    return target == nullptr ? nullptr : l0op::BroadcastTo(cast, target, executor);
}

}  // namespace

extern "C" aclnnStatus aclnnMishBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                         aclTensor* gradInput, uint64_t* workspaceSize,
                                                         aclOpExecutor** executor)
{
    if (workspaceSize == nullptr || executor == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    L2_DFX_PHASE_1(aclnnMishBackward, DFX_IN(gradOutput, self), DFX_OUT(gradInput));
    auto plan = CREATE_EXECUTOR();
    if (plan.get() == nullptr) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    const mishgrad::ContractResult contract =
        mishgrad::CheckMishBackward(Describe(gradOutput), Describe(self), Describe(gradInput));
    if (contract.status != mishgrad::kAclnnSuccess) {
        OP_LOGE(contract.status, "aclnnMishBackward: %s", contract.message.c_str());
        return contract.status;
    }
    if (gradOutput->IsEmpty() || self->IsEmpty() || gradInput->IsEmpty()) {
        *workspaceSize = 0;
        plan.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    const auto dtype = static_cast<DataType>(contract.computeDtype);
    const aclTensor* grad = Prepare(gradOutput, dtype, contract.broadcastShape, plan.get());
    const aclTensor* x = Prepare(self, dtype, contract.broadcastShape, plan.get());
    if (grad == nullptr || x == nullptr) {
        return ACLNN_ERR_INNER_NULLPTR;
    }
    const aclTensor* result = l0op::MishGrad(grad, x, nullptr, plan.get());
    const aclTensor* cast = result == nullptr ? nullptr : l0op::Cast(result, gradInput->GetDataType(), plan.get());
    if (cast == nullptr || l0op::ViewCopy(cast, gradInput, plan.get()) == nullptr) {
        return ACLNN_ERR_INNER_NULLPTR;
    }
    *workspaceSize = plan->GetWorkspaceSize();
    plan.ReleaseTo(executor);
    return ACLNN_SUCCESS;
}

extern "C" aclnnStatus aclnnMishBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                         aclrtStream stream)
{
    L2_DFX_PHASE_2(aclnnMishBackward);
    return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
}
