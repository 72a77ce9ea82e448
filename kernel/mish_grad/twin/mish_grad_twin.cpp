// MishGrad's twin glue: what the twin library exports for this operator, and what ops-nn never
// sees (this folder is not copied into it). The kernel entries, compiled once per dtype from
// op_kernel/mish_grad.cpp; the tiling for Python (mishgrad_tiling); aclnnMishBackward's two
// phases on the twin's aclnn machinery (twin/aclnn.h), with the contract shared with CANN's
// adapter (common/mish_grad_contract.h).
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "aclnn_mish_backward.h"
#include "mish_grad_contract.h"
#include "mish_grad_dtypes.h"
#include "mish_grad_tiling.h"
#include "mish_grad_tiling_data.h"
#include "twin/aclnn.h"
#include "twin/launch.h"
#include "twin/runtime.h"
#include "twin/views.h"

// The stand-ins for CANN's headers keep CANN's own values; the dtype table is numbered the same.
static_assert(mishgrad::kDtFloat == int32_t{ACL_FLOAT} && mishgrad::kDtFloat16 == int32_t{ACL_FLOAT16} &&
                  mishgrad::kDtBf16 == int32_t{ACL_BF16},
              "common/mish_grad_dtypes.h numbers the dtypes as aclDataType does");

// The kernel entry, compiled once per dtype of the table (op_kernel/mish_grad.cpp). Weak: a
// library built for one dtype (what mishgrad.kernel.twin.run_kernel needs, so that an edit
// recompiles one instantiation) leaves the others null.
#define MISHGRAD_ENTRY(id, code, name, size, suffix)                                          \
    extern "C" __attribute__((weak)) void mish_grad_##suffix(uint8_t* grad, uint8_t* x, uint8_t* tanhx, \
                                                             uint8_t* xGrad, uint8_t* workspace, uint8_t* tiling);
MISHGRAD_DTYPES(MISHGRAD_ENTRY)
#undef MISHGRAD_ENTRY

namespace {

using Entry = void (*)(uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*);

// An aclDataType value -> its kernel entry and element size (null if this library was built
// without it).
bool EntryFor(int32_t dtype, Entry* entry, uint32_t* size)
{
    switch (dtype) {
#define MISHGRAD_ENTRY_CASE(id, code, name, bytes, suffix) \
    case mishgrad::id: *entry = mish_grad_##suffix; *size = bytes; break;
        MISHGRAD_DTYPES(MISHGRAD_ENTRY_CASE)
#undef MISHGRAD_ENTRY_CASE
        default: return false;
    }
    return *entry != nullptr;
}

// Plans the tiling and runs mish_grad for `dtype` on n elements at the given device addresses
// (grad and x, no tanhx): the aclnn layer's launch, on the platform aclrt set.
std::string LaunchMishGrad(int32_t dtype, const std::vector<uint8_t*>& inputs, uint8_t* xGrad, uint8_t* workspace,
                           uint64_t n)
{
    Entry entry = nullptr;
    uint32_t size = 0;
    if (!EntryFor(dtype, &entry, &size)) {
        return "dtype " + std::to_string(dtype) + " has no kernel";
    }
    const twin::LaunchPlatform& platform = twin::CurrentLaunchPlatform();
    // A platform whose Select has a scratch area starts it below the top of UB.
    const bool selectUsesScratch = platform.selectScratchBegin != 0 && platform.selectScratchBegin < platform.ubBytes;
    MishGradTilingData tiling{};
    const mishgrad::TilingStatus status = mishgrad::ComputeTiling(
        n, size, false, platform.ubReported, platform.vectorCores, selectUsesScratch, &tiling);
    if (status != mishgrad::TilingStatus::kOk) {
        return "the tiling failed with status " + std::to_string(static_cast<int32_t>(status));
    }
    const uint64_t bytes = n * size;
    const twin::EntryLaunch launch{
        reinterpret_cast<twin::KernelEntry>(entry),
        {inputs[0], inputs[1], nullptr, xGrad, workspace, reinterpret_cast<uint8_t*>(&tiling)},
        {{inputs[0], bytes, "grad"},
         {inputs[1], bytes, "x"},
         {xGrad, bytes, "x_grad"},
         {workspace, mishgrad::kStampBytes, "workspace"}},
        tiling.blockDim};
    return twin::RunOnLaunchPlatform(launch, platform);
}

mishgrad::TensorInfo Info(const aclTensor* tensor)
{
    return tensor == nullptr ? mishgrad::TensorInfo{false, 0, {}}
                             : mishgrad::TensorInfo{true, tensor->dtype, tensor->shape};
}

}  // namespace

// ComputeTiling of common/mish_grad_tiling.h, for Python (mishgrad.kernel.twin.native_tiling);
// returns its TilingStatus, or -1 for a null `out`.
extern "C" int32_t mishgrad_tiling(uint64_t totalLength, uint32_t dtypeSize, int32_t hasTanhx, uint64_t ubBytes,
                                   uint32_t coreCount, int32_t selectUsesScratch, MishGradTilingData* out)
{
    if (out == nullptr) {
        return -1;
    }
    return static_cast<int32_t>(mishgrad::ComputeTiling(totalLength, dtypeSize, hasTanhx != 0, ubBytes, coreCount,
                                                        selectUsesScratch != 0, out));
}

extern "C" {

aclnnStatus aclnnMishBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, aclTensor* gradInput,
                                              uint64_t* workspaceSize, aclOpExecutor** executor)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    const std::string api = "aclnnMishBackwardGetWorkspaceSize: ";
    if (const std::string notReady = twin::RuntimeNotReady(); !notReady.empty()) {
        return twin::Error(ACLNN_ERR_RUNTIME_ERROR, api + notReady);
    }
    if (workspaceSize == nullptr || executor == nullptr) {
        return twin::Error(mishgrad::kAclnnErrParamNullptr, api + "workspaceSize and executor must not be null");
    }
    const aclTensor* tensors[] = {gradOutput, self, gradInput};
    const aclTensor* live[3] = {};
    for (int i = 0; i < 3; ++i) {
        live[i] = twin::FindTensor(tensors[i]);
        if (tensors[i] != nullptr && live[i] == nullptr) {
            return twin::Error(mishgrad::kAclnnErrParamInvalid,
                               api + "a tensor argument is not a live tensor from aclCreateTensor (a twin-only check)");
        }
    }
    const mishgrad::ContractResult contract = mishgrad::CheckMishBackward(Info(live[0]), Info(live[1]), Info(live[2]));
    if (contract.status != mishgrad::kAclnnSuccess) {
        return twin::Error(contract.status, api + contract.message);
    }
    if (const std::string overlap = twin::SelfOverlapRefusal(live[2]->shape, live[2]->strides); !overlap.empty()) {
        return twin::Error(mishgrad::kAclnnErrParamInvalid, api + "gradInput's view may map several elements to one "
                                                                  "memory location (a twin-only check): " + overlap);
    }
    // The kernel's own workspace is what CANN's tiling function asks for beyond its system
    // workspace (op_host/mish_grad_tiling.cpp): the stamp.
    const twin::ElementwiseOp op{"aclnnMishBackward", contract.broadcastShape, contract.computeDtype,
                                 mishgrad::kStampBytes, LaunchMishGrad};
    return twin::PlanElementwise(api, op, {live[0], live[1]}, *live[2], workspaceSize, executor);
}

aclnnStatus aclnnMishBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream)
{
    return twin::RunExecutor("aclnnMishBackward: ", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
