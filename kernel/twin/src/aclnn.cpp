// The CPU twin's aclnn layer: tensors and the two phases of aclnnMishBackward.
//
// Phase 1 checks the arguments with the contract shared with CANN's adapter
// (common/mish_grad_contract.h) and plans the work as CANN's executor would: gather each
// input into a contiguous buffer of the computation dtype where it is strided, broadcast or
// of another dtype; launch the kernel; copy the result into gradInput's view, casting to its
// dtype. The workspace is exactly the bytes of those intermediate buffers. Phase 2 checks
// the workspace, runs the plan on the stream and retires the executor.
#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn_mish_backward.h"
#include "mish_grad_contract.h"
#include "twin/numeric_types.h"
#include "twin/runtime.h"

struct aclTensor {
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;  // in elements
    int64_t offset;                // in elements, from `data`
    std::vector<int64_t> storageShape;
    aclDataType dtype;
    aclFormat format;
    uint8_t* data;
};

namespace {

using mishgrad::kAclnnErrParamInvalid;
using mishgrad::kAclnnErrParamNullptr;
using twin::Error;

constexpr uint64_t kWorkspaceAlign = 32;

std::set<const aclTensor*>& LiveTensors()
{
    static std::set<const aclTensor*> tensors;
    return tensors;
}

uint32_t ElementSize(int32_t dtype)
{
    switch (dtype) {
        case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
        case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
        case ACL_DOUBLE: case ACL_INT64: case ACL_UINT64: return 8;
        default: return 1;
    }
}

int64_t Elements(const std::vector<int64_t>& shape)
{
    int64_t count = 1;
    for (int64_t dim : shape) {
        count *= dim;
    }
    return count;
}

float LoadFloat(int32_t dtype, const uint8_t* address)
{
    switch (dtype) {
        case ACL_FLOAT16: return half::FromBits(*reinterpret_cast<const uint16_t*>(address));
        case ACL_BF16: return bfloat16_t::FromBits(*reinterpret_cast<const uint16_t*>(address));
        default: return *reinterpret_cast<const float*>(address);
    }
}

void StoreFloat(int32_t dtype, uint8_t* address, float value)  // rounds to nearest even
{
    switch (dtype) {
        case ACL_FLOAT16: *reinterpret_cast<uint16_t*>(address) = half(value).bits; break;
        case ACL_BF16: *reinterpret_cast<uint16_t*>(address) = bfloat16_t(value).bits; break;
        default: *reinterpret_cast<float*>(address) = value; break;
    }
}

// Calls visit(linear, elementOffset) for every element of `shape` in row-major order, where
// elementOffset follows `strides` (a stride of 0 repeats an element: broadcasting).
template <typename Visit>
void ForEachElement(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t offset,
                    Visit visit)
{
    const int64_t total = Elements(shape);
    std::vector<int64_t> index(shape.size(), 0);
    int64_t position = offset;
    for (int64_t linear = 0; linear < total; ++linear) {
        visit(linear, position);
        for (size_t d = shape.size(); d-- > 0;) {
            if (++index[d] < shape[d]) {
                position += strides[d];
                break;
            }
            position -= strides[d] * (shape[d] - 1);
            index[d] = 0;
        }
    }
}

// Strides that read `tensor` as if it had `shape` (broadcast): aligned at the last dimension,
// 0 where the tensor's dimension is 1 (or missing).
std::vector<int64_t> BroadcastStrides(const aclTensor& tensor, const std::vector<int64_t>& shape)
{
    std::vector<int64_t> strides(shape.size(), 0);
    const size_t lead = shape.size() - tensor.shape.size();
    for (size_t d = 0; d < tensor.shape.size(); ++d) {
        strides[lead + d] = tensor.shape[d] == 1 ? 0 : tensor.strides[d];
    }
    return strides;
}

bool IsContiguous(const aclTensor& tensor)
{
    int64_t expected = 1;
    for (size_t d = tensor.shape.size(); d-- > 0;) {
        if (tensor.shape[d] != 1 && tensor.strides[d] != expected) {
            return false;
        }
        expected *= tensor.shape[d];
    }
    return true;
}

// Distinct view elements map to distinct storage elements. Sorting the dimensions by stride
// proves it cheaply for the usual layouts; interleaved layouts that the quick test cannot
// decide are checked element by element.
bool HasNoInternalOverlap(const aclTensor& tensor)
{
    const int64_t total = Elements(tensor.shape);
    if (total <= 1) {
        return true;
    }
    std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims with size > 1
    for (size_t d = 0; d < tensor.shape.size(); ++d) {
        if (tensor.shape[d] > 1) {
            dims.emplace_back(tensor.strides[d], tensor.shape[d]);
        }
    }
    std::sort(dims.begin(), dims.end());
    int64_t reach = 0;  // largest offset the smaller-stride dims span
    bool proven = true;
    for (const auto& [stride, size] : dims) {
        if (stride == 0) {
            return false;
        }
        proven = proven && stride > reach;
        reach += stride * (size - 1);
    }
    if (proven) {
        return true;
    }
    constexpr int64_t kExhaustiveLimit = int64_t{1} << 26;
    if (total > kExhaustiveLimit) {
        return false;  // too large to decide exactly: treated as overlapping
    }
    std::vector<int64_t> positions;
    positions.reserve(static_cast<size_t>(total));
    ForEachElement(tensor.shape, tensor.strides, 0, [&](int64_t, int64_t position) { positions.push_back(position); });
    std::sort(positions.begin(), positions.end());
    return std::adjacent_find(positions.begin(), positions.end()) == positions.end();
}

// The storage bytes a tensor's view can touch: [first, last) relative to data.
std::pair<int64_t, int64_t> ViewSpan(const aclTensor& tensor)
{
    int64_t last = tensor.offset;
    for (size_t d = 0; d < tensor.shape.size(); ++d) {
        last += tensor.strides[d] * (tensor.shape[d] - 1);
    }
    const int64_t size = ElementSize(tensor.dtype);
    return {tensor.offset * size, (last + 1) * size};
}

// One input of the kernel: where it is read from, and whether it must be gathered first.
struct Operand {
    aclTensor view;
    bool gather;                // strided, broadcast or cast: gathered into the workspace
    uint64_t workspaceOffset;   // if gathered
};

}  // namespace

struct aclOpExecutor {
    bool empty = false;
    std::vector<int64_t> shape;
    int32_t computeDtype = ACL_FLOAT;
    Operand grad{};
    Operand self{};
    aclTensor out{};
    bool outputThroughWorkspace = false;
    uint64_t outputOffset = 0;
    uint64_t workspaceSize = 0;
};

namespace {

std::set<const aclOpExecutor*>& LiveExecutors()
{
    static std::set<const aclOpExecutor*> executors;
    return executors;
}

// Executors that have run stay allocated for a while, so that a new executor never reuses the
// address of one that ran and a second run of an old handle is reported as such.
void Retire(std::unique_ptr<aclOpExecutor> executor)
{
    static std::deque<std::unique_ptr<aclOpExecutor>> retired;
    constexpr size_t kKept = 4096;
    retired.push_back(std::move(executor));
    if (retired.size() > kKept) {
        retired.pop_front();
    }
}

uint64_t Reserve(uint64_t* workspace, uint64_t bytes)
{
    const uint64_t offset = *workspace;
    *workspace += (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
    return offset;
}

Operand PlanInput(const aclTensor& tensor, const std::vector<int64_t>& shape, int32_t computeDtype, uint64_t* workspace)
{
    const bool direct = tensor.dtype == computeDtype && tensor.shape == shape && IsContiguous(tensor);
    Operand operand{tensor, !direct, 0};
    if (!direct) {
        operand.workspaceOffset = Reserve(workspace, Elements(shape) * ElementSize(computeDtype));
    }
    return operand;
}

bool Overlaps(const aclTensor& a, const aclTensor& b)
{
    const auto [aFirst, aLast] = ViewSpan(a);
    const auto [bFirst, bLast] = ViewSpan(b);
    return a.data + aFirst < b.data + bLast && b.data + bFirst < a.data + aLast;
}

// A tensor's storage must still be live device memory when the plan runs.
bool StorageIsLive(const aclTensor& tensor)
{
    const auto [first, last] = ViewSpan(tensor);
    return twin::FindAllocation(tensor.data + first, static_cast<uint64_t>(last - first)) != nullptr;
}

uint8_t* InputAddress(const Operand& operand, uint8_t* workspace, const std::vector<int64_t>& shape, int32_t dtype)
{
    if (!operand.gather) {
        return operand.view.data + operand.view.offset * ElementSize(operand.view.dtype);
    }
    uint8_t* target = workspace + operand.workspaceOffset;
    const aclTensor& view = operand.view;
    const uint32_t from = ElementSize(view.dtype);
    const uint32_t to = ElementSize(dtype);
    ForEachElement(shape, BroadcastStrides(view, shape), view.offset, [&](int64_t linear, int64_t position) {
        StoreFloat(dtype, target + linear * to, LoadFloat(view.dtype, view.data + position * from));
    });
    return target;
}

std::string Run(const aclOpExecutor& plan, uint8_t* workspace, void* stream)
{
    for (const aclTensor* tensor : {&plan.grad.view, &plan.self.view, &plan.out}) {
        if (!StorageIsLive(*tensor)) {
            return "a tensor's device memory was freed before aclnnMishBackward ran";
        }
    }
    (void)stream;
    const uint64_t n = static_cast<uint64_t>(Elements(plan.shape));
    uint8_t* grad = InputAddress(plan.grad, workspace, plan.shape, plan.computeDtype);
    uint8_t* self = InputAddress(plan.self, workspace, plan.shape, plan.computeDtype);
    const uint32_t outSize = ElementSize(plan.out.dtype);
    uint8_t* result = plan.outputThroughWorkspace ? workspace + plan.outputOffset
                                                  : plan.out.data + plan.out.offset * outSize;
    const std::string error = twin::LaunchMishGrad(plan.computeDtype, grad, self, nullptr, result, n,
                                                   twin::CurrentLaunchPlatform(), false, nullptr);
    if (!error.empty() || !plan.outputThroughWorkspace) {
        return error;
    }
    const uint32_t computeSize = ElementSize(plan.computeDtype);
    ForEachElement(plan.shape, plan.out.strides, plan.out.offset, [&](int64_t linear, int64_t position) {
        StoreFloat(plan.out.dtype, plan.out.data + position * outSize,
                   LoadFloat(plan.computeDtype, result + linear * computeSize));
    });
    return "";
}

}  // namespace

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if ((viewDims == nullptr && viewDimsNum > 0) || (stride == nullptr && viewDimsNum > 0) ||
        (storageDims == nullptr && storageDimsNum > 0)) {
        Error(kAclnnErrParamNullptr, "aclCreateTensor: viewDims, stride and storageDims must not be null");
        return nullptr;
    }
    if (viewDimsNum > 64 || storageDimsNum > 64) {
        Error(kAclnnErrParamInvalid, "aclCreateTensor: too many dimensions");
        return nullptr;
    }
    auto tensor = std::make_unique<aclTensor>();
    tensor->shape.assign(viewDims, viewDims + viewDimsNum);
    tensor->strides.assign(stride, stride + viewDimsNum);
    tensor->storageShape.assign(storageDims, storageDims + storageDimsNum);
    tensor->offset = offset;
    tensor->dtype = dataType;
    tensor->format = format;
    tensor->data = static_cast<uint8_t*>(tensorData);
    const auto negative = [](int64_t value) { return value < 0; };
    if (std::any_of(tensor->shape.begin(), tensor->shape.end(), negative) ||
        std::any_of(tensor->strides.begin(), tensor->strides.end(), negative) ||
        std::any_of(tensor->storageShape.begin(), tensor->storageShape.end(), negative) || offset < 0) {
        Error(kAclnnErrParamInvalid, "aclCreateTensor: dims, strides and offset must not be negative");
        return nullptr;
    }
    const int64_t storageBytes = Elements(tensor->storageShape) * ElementSize(dataType);
    if (Elements(tensor->shape) > 0) {
        const auto [first, last] = ViewSpan(*tensor);
        if (last > storageBytes) {
            Error(kAclnnErrParamInvalid, "aclCreateTensor: the view reaches byte " + std::to_string(last) +
                                             " but the storage holds " + std::to_string(storageBytes));
            return nullptr;
        }
        (void)first;
    }
    if (storageBytes > 0 && twin::FindAllocation(tensorData, static_cast<uint64_t>(storageBytes)) == nullptr) {
        Error(kAclnnErrParamInvalid,
              "aclCreateTensor: tensorData plus the storage's " + std::to_string(storageBytes) +
                  " bytes is not inside one device allocation (aclrtMalloc)");
        return nullptr;
    }
    LiveTensors().insert(tensor.get());
    return tensor.release();
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (tensor == nullptr) {
        return Error(kAclnnErrParamNullptr, "aclDestroyTensor: tensor is a null pointer");
    }
    if (LiveTensors().erase(tensor) == 0) {
        return Error(kAclnnErrParamInvalid, "aclDestroyTensor: not a live tensor from aclCreateTensor");
    }
    delete tensor;
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnMishBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, aclTensor* gradInput,
                                              uint64_t* workspaceSize, aclOpExecutor** executor)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (workspaceSize == nullptr || executor == nullptr) {
        return Error(kAclnnErrParamNullptr, "aclnnMishBackwardGetWorkspaceSize: workspaceSize and executor "
                                            "must not be null");
    }
    const aclTensor* tensors[] = {gradOutput, self, gradInput};
    for (const aclTensor* tensor : tensors) {
        if (tensor != nullptr && LiveTensors().count(tensor) == 0) {
            return Error(kAclnnErrParamInvalid,
                         "aclnnMishBackwardGetWorkspaceSize: a tensor argument is not a live tensor");
        }
    }
    const auto info = [](const aclTensor* tensor) {
        return tensor == nullptr ? mishgrad::TensorInfo{false, 0, {}}
                                 : mishgrad::TensorInfo{true, tensor->dtype, tensor->shape};
    };
    const mishgrad::ContractResult contract = mishgrad::CheckMishBackward(info(gradOutput), info(self), info(gradInput));
    if (contract.status != mishgrad::kAclnnSuccess) {
        return Error(contract.status, "aclnnMishBackwardGetWorkspaceSize: " + contract.message);
    }
    if (!HasNoInternalOverlap(*gradInput)) {
        return Error(kAclnnErrParamInvalid,
                     "aclnnMishBackwardGetWorkspaceSize: gradInput's view maps several elements to one "
                     "memory location");
    }
    auto plan = std::make_unique<aclOpExecutor>();
    plan->shape = contract.broadcastShape;
    plan->computeDtype = contract.computeDtype;
    plan->out = *gradInput;
    plan->grad.view = *gradOutput;
    plan->self.view = *self;
    plan->empty = Elements(plan->shape) == 0;
    if (!plan->empty) {
        uint64_t workspace = 0;
        plan->grad = PlanInput(*gradOutput, plan->shape, plan->computeDtype, &workspace);
        plan->self = PlanInput(*self, plan->shape, plan->computeDtype, &workspace);
        // The kernel writes the output directly only where it is contiguous, of the computation
        // dtype, and shares no memory with an input it still has to read.
        plan->outputThroughWorkspace = gradInput->dtype != plan->computeDtype || !IsContiguous(*gradInput) ||
                                       (!plan->grad.gather && Overlaps(*gradInput, *gradOutput) &&
                                        gradInput->data + gradInput->offset != gradOutput->data + gradOutput->offset) ||
                                       (!plan->self.gather && Overlaps(*gradInput, *self) &&
                                        gradInput->data + gradInput->offset != self->data + self->offset);
        if (plan->outputThroughWorkspace) {
            plan->outputOffset = Reserve(&workspace, Elements(plan->shape) * ElementSize(plan->computeDtype));
        }
        plan->workspaceSize = workspace;
    }
    *workspaceSize = plan->workspaceSize;
    LiveExecutors().insert(plan.get());
    *executor = plan.release();
    twin::ClearError();
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnMishBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream)
{
    std::unique_lock<std::mutex> lock(twin::AclMutex());
    if (executor == nullptr) {
        return Error(kAclnnErrParamNullptr, "aclnnMishBackward: executor is a null pointer");
    }
    if (LiveExecutors().count(executor) == 0) {
        return Error(kAclnnErrParamInvalid, "aclnnMishBackward: the executor is unknown or has already run "
                                            "(an executor runs once)");
    }
    if (workspaceSize < executor->workspaceSize) {
        return Error(kAclnnErrParamInvalid, "aclnnMishBackward: workspaceSize " + std::to_string(workspaceSize) +
                                                " is smaller than the " + std::to_string(executor->workspaceSize) +
                                                " bytes GetWorkspaceSize reported");
    }
    if (executor->workspaceSize > 0 && workspace == nullptr) {
        return Error(kAclnnErrParamNullptr, "aclnnMishBackward: workspace is a null pointer");
    }
    if (executor->workspaceSize > 0 && twin::FindAllocation(workspace, executor->workspaceSize) == nullptr) {
        return Error(kAclnnErrParamInvalid, "aclnnMishBackward: the workspace is not " +
                                                std::to_string(executor->workspaceSize) +
                                                " bytes of device memory from aclrtMalloc");
    }
    if (!twin::IsStream(stream)) {
        return Error(kAclnnErrParamInvalid, "aclnnMishBackward: stream is not a live stream");
    }
    std::unique_ptr<aclOpExecutor> plan(executor);
    LiveExecutors().erase(executor);
    if (!plan->empty) {
        // The stream runs the task now; like the NPU, failures surface at aclrtSynchronizeStream.
        const std::string error = Run(*plan, static_cast<uint8_t*>(workspace), stream);
        if (!error.empty()) {
            twin::FailStream(stream, error);
        }
    }
    Retire(std::move(plan));
    twin::ClearError();
    return ACLNN_SUCCESS;
}

}  // extern "C"
