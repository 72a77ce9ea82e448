// The CPU twin's aclnn machinery (twin/aclnn.h): tensors, executors, an elementwise
// operator's plan and phase 2. An operator's twin glue builds its two phases on it.
//
// Phase 1 of an elementwise operator plans the work as CANN's executor would: gather each
// input into a contiguous buffer of the computation dtype where it is strided, broadcast or
// of another dtype; launch the kernel; copy the result into the output's view, casting to its
// dtype. The workspace is exactly the bytes of those intermediate buffers and of the kernel's
// own workspace. Phase 2 checks the workspace, runs the plan on the stream and retires the
// executor.
//
// Tensors and executors are handed out as handles that are never reused (twin/handles.h), and
// a tensor remembers which aclrtMalloc its storage came from, so a stale handle or storage that
// was freed (and perhaps allocated again) is reported, never silently used. Checks marked
// "twin-only" have no counterpart in CANN's adapters: there such a call's behaviour is undefined.
#include "twin/aclnn.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "twin/handles.h"
#include "twin/numeric_types.h"
#include "twin/runtime.h"
#include "twin/views.h"

namespace {

using twin::ElementSize;
using twin::Error;

constexpr uint64_t kWorkspaceAlign = 32;
constexpr uint64_t kMaxTensorDims = 64;

twin::HandleTable<aclTensor>& Tensors()
{
    static twin::HandleTable<aclTensor> tensors;
    return tensors;
}

twin::HandleTable<aclOpExecutor>& Executors()
{
    static twin::HandleTable<aclOpExecutor> executors;
    return executors;
}

bool IsKnownFormat(int32_t format)
{
    switch (format) {
        case ACL_FORMAT_NCHW: case ACL_FORMAT_NHWC: case ACL_FORMAT_ND: case ACL_FORMAT_NC1HWC0:
        case ACL_FORMAT_FRACTAL_Z: case ACL_FORMAT_FRACTAL_NZ: return true;
        default: return false;
    }
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

// For a non-empty view (whose element count fits int64, so no product below can wrap).
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

// The storage check of aclCreateTensor, in checked arithmetic: "" if the view lies inside
// storageElements elements of `dtype` at tensorData, inside one live device allocation, else
// why not. Fills the tensor's byte span and allocation generation.
std::string PlaceView(aclTensor* tensor, const std::vector<int64_t>& storageShape)
{
    const int64_t size = ElementSize(tensor->dtype);
    int64_t viewElements = 0;
    int64_t storageElements = 0;
    int64_t storageBytes = 0;
    int64_t last = 0;
    if (!twin::ElementCount(tensor->shape, &viewElements) ||
        !twin::ElementCount(storageShape, &storageElements) ||
        __builtin_mul_overflow(storageElements, size, &storageBytes)) {
        return "the view's or the storage's element count (or byte count) does not fit int64";
    }
    if (viewElements > 0) {
        if (!twin::LastElement(tensor->shape, tensor->strides, tensor->offset, &last)) {
            return "the view's last element lies beyond int64's range (strides or offset too large)";
        }
        if (last >= storageElements) {
            return "the view reaches element " + std::to_string(last) + " but the storage holds " +
                   std::to_string(storageElements) + " elements";
        }
        tensor->firstByte = tensor->offset * size;  // offset <= last < storageElements: no overflow
        tensor->endByte = (last + 1) * size;
    }
    if (storageBytes == 0) {
        return "";
    }
    if (reinterpret_cast<uintptr_t>(tensor->data) % static_cast<uintptr_t>(size) != 0) {
        return "tensorData is not aligned to its dtype's " + std::to_string(size) + "-byte elements";
    }
    const twin::Allocation* allocation = twin::FindAllocation(tensor->data, static_cast<uint64_t>(storageBytes));
    if (allocation == nullptr) {
        return "tensorData plus the storage's " + std::to_string(storageBytes) +
               " bytes is not inside one device allocation (aclrtMalloc)";
    }
    tensor->generation = allocation->generation;
    return "";
}

// Whether a tensor's storage is still the device memory it was created over: not freed, and
// not freed and allocated again at the same address.
bool StorageIsLive(const aclTensor& tensor)
{
    if (tensor.endByte == tensor.firstByte) {
        return true;  // touches no memory
    }
    const twin::Allocation* allocation = twin::FindAllocation(
        tensor.data + tensor.firstByte, static_cast<uint64_t>(tensor.endByte - tensor.firstByte));
    return allocation != nullptr && allocation->generation == tensor.generation;
}

// One input of the kernel: where it is read from, and whether it must be gathered first.
struct Operand {
    aclTensor view;
    bool gather;               // strided, broadcast or cast: gathered into the workspace
    uint64_t workspaceOffset;  // if gathered
};

// Places `bytes` bytes at the end of the workspace; false if its size would not fit 64 bits.
bool ReserveBytes(uint64_t* workspace, uint64_t bytes, uint64_t* offset)
{
    uint64_t end = 0;
    if (__builtin_add_overflow(bytes, kWorkspaceAlign - 1, &bytes) ||
        __builtin_add_overflow(*workspace, bytes / kWorkspaceAlign * kWorkspaceAlign, &end)) {
        return false;
    }
    *offset = *workspace;
    *workspace = end;
    return true;
}

// Places a buffer of `elements` elements of `dtype` at the end of the workspace.
bool Reserve(uint64_t* workspace, int64_t elements, int32_t dtype, uint64_t* offset)
{
    uint64_t bytes = 0;
    return !__builtin_mul_overflow(static_cast<uint64_t>(elements), ElementSize(dtype), &bytes) &&
           ReserveBytes(workspace, bytes, offset);
}

bool Overlaps(const aclTensor& a, const aclTensor& b)
{
    return a.data + a.firstByte < b.data + b.endByte && b.data + b.firstByte < a.data + a.endByte;
}

// The plan of an elementwise operator (twin::PlanElementwise), run by phase 2.
class ElementwiseExecutor : public aclOpExecutor {
public:
    ElementwiseExecutor(const twin::ElementwiseOp& op, const aclTensor& out) : op_(op), out_(out)
    {
        twin::ElementCount(op.shape, &elements_);  // the output's shape: counted by the contract
        workspaceAlign = ElementSize(op.computeDtype);
    }

    // Fills in the operands and the workspace; false if the workspace's size does not fit.
    bool Plan(const std::vector<const aclTensor*>& inputs)
    {
        if (elements_ == 0) {
            return true;  // nothing to launch
        }
        uint64_t workspace = 0;
        for (const aclTensor* input : inputs) {
            if (!PlanInput(*input, &workspace)) {
                return false;
            }
        }
        outputThroughWorkspace_ = OutputThroughWorkspace();
        if (outputThroughWorkspace_ && !Reserve(&workspace, elements_, op_.computeDtype, &outputOffset_)) {
            return false;
        }
        // What the operator's tiling function asks for beyond its system workspace.
        if (!ReserveBytes(&workspace, op_.kernelWorkspaceBytes, &kernelWorkspaceOffset_)) {
            return false;
        }
        workspaceSize = workspace;
        return true;
    }

    std::string Run(uint8_t* workspace) const override
    {
        if (elements_ == 0) {
            return "";
        }
        for (const Operand& input : inputs_) {
            if (!StorageIsLive(input.view)) {
                return Freed();
            }
        }
        if (!StorageIsLive(out_)) {
            return Freed();
        }
        std::vector<uint8_t*> addresses;
        for (const Operand& input : inputs_) {
            addresses.push_back(InputAddress(input, workspace));
        }
        uint8_t* result = outputThroughWorkspace_ ? workspace + outputOffset_ : out_.data + out_.firstByte;
        const std::string error = op_.kernel(op_.computeDtype, addresses, result, workspace + kernelWorkspaceOffset_,
                                             static_cast<uint64_t>(elements_));
        if (error.empty() && outputThroughWorkspace_) {
            CopyOut(result);
        }
        return error;
    }

    std::vector<const void*> Memory() const override
    {
        std::vector<const void*> memory{out_.data};
        for (const Operand& input : inputs_) {
            memory.push_back(input.view.data);
        }
        return memory;
    }

private:
    std::string Freed() const
    {
        return "a tensor's device memory was freed before " + op_.name +
               " ran (perhaps allocated again since; a twin-only check)";
    }

    bool PlanInput(const aclTensor& tensor, uint64_t* workspace)
    {
        const bool direct = tensor.dtype == op_.computeDtype && tensor.shape == op_.shape && IsContiguous(tensor);
        inputs_.push_back(Operand{tensor, !direct, 0});
        return direct || Reserve(workspace, elements_, op_.computeDtype, &inputs_.back().workspaceOffset);
    }

    // The kernel writes the output directly only where it is contiguous, of the computation
    // dtype, and shares no memory with an input it still has to read.
    bool OutputThroughWorkspace() const
    {
        const auto clashes = [&](const Operand& input) {
            return !input.gather && Overlaps(out_, input.view) &&
                   out_.data + out_.firstByte != input.view.data + input.view.firstByte;
        };
        return out_.dtype != op_.computeDtype || !IsContiguous(out_) ||
               std::any_of(inputs_.begin(), inputs_.end(), clashes);
    }

    uint8_t* InputAddress(const Operand& operand, uint8_t* workspace) const
    {
        if (!operand.gather) {
            return operand.view.data + operand.view.firstByte;
        }
        uint8_t* target = workspace + operand.workspaceOffset;
        const aclTensor& view = operand.view;
        const uint32_t from = ElementSize(view.dtype);
        const uint32_t to = ElementSize(op_.computeDtype);
        twin::ForEachElement(op_.shape, BroadcastStrides(view, op_.shape), view.offset,
                             [&](int64_t linear, int64_t position) {
                                 StoreFloat(op_.computeDtype, target + linear * to,
                                            LoadFloat(view.dtype, view.data + position * from));
                             });
        return target;
    }

    void CopyOut(const uint8_t* result) const
    {
        const uint32_t outSize = ElementSize(out_.dtype);
        const uint32_t computeSize = ElementSize(op_.computeDtype);
        twin::ForEachElement(op_.shape, out_.strides, out_.offset, [&](int64_t linear, int64_t position) {
            StoreFloat(out_.dtype, out_.data + position * outSize,
                       LoadFloat(op_.computeDtype, result + linear * computeSize));
        });
    }

    twin::ElementwiseOp op_;
    aclTensor out_;
    int64_t elements_ = 0;
    std::vector<Operand> inputs_;
    bool outputThroughWorkspace_ = false;
    uint64_t outputOffset_ = 0;
    uint64_t kernelWorkspaceOffset_ = 0;  // the kernel's own workspace
};

// aclCreateTensor's argument checks, before anything is stored: "" or what is wrong.
std::string CheckTensorArguments(const int64_t* viewDims, uint64_t viewDimsNum, int32_t dtype, const int64_t* stride,
                                 int64_t offset, int32_t format, const int64_t* storageDims, uint64_t storageDimsNum)
{
    if (viewDimsNum > kMaxTensorDims || storageDimsNum > kMaxTensorDims) {
        return "more than " + std::to_string(kMaxTensorDims) + " dimensions";
    }
    if (ElementSize(dtype) == 0) {
        return "dataType " + std::to_string(dtype) + " is not an aclDataType the twin defines";
    }
    if (!IsKnownFormat(format)) {
        return "format " + std::to_string(format) + " is not an aclFormat the twin defines";
    }
    const auto negative = [](const int64_t* values, uint64_t count) {
        return std::any_of(values, values + count, [](int64_t value) { return value < 0; });
    };
    if (negative(viewDims, viewDimsNum) || negative(stride, viewDimsNum) || negative(storageDims, storageDimsNum) ||
        offset < 0) {
        return "dims, strides and offset must not be negative";
    }
    return "";
}

}  // namespace

namespace twin {

void ReleaseAclnnResources() { Executors().Clear(); }

uint32_t ElementSize(int32_t dtype)
{
    switch (dtype) {
        case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
        case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
        case ACL_DOUBLE: case ACL_INT64: case ACL_UINT64: return 8;
        case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
        default: return 0;
    }
}

const aclTensor* FindTensor(const aclTensor* tensor) { return Tensors().Find(tensor); }

aclnnStatus PlanElementwise(const std::string& api, const ElementwiseOp& op,
                            const std::vector<const aclTensor*>& inputs, const aclTensor& out,
                            uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto plan = std::make_unique<ElementwiseExecutor>(op, out);
    if (!plan->Plan(inputs)) {
        return Error(ACLNN_ERR_PARAM_INVALID, api + "the workspace would exceed 2^64 bytes");
    }
    *workspaceSize = plan->workspaceSize;
    *executor = Executors().Insert(std::move(plan));
    return ACLNN_SUCCESS;
}

aclnnStatus RunExecutor(const std::string& api, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream)
{
    std::unique_lock<std::mutex> lock(AclMutex());
    if (const std::string notReady = RuntimeNotReady(); !notReady.empty()) {
        return Error(ACLNN_ERR_RUNTIME_ERROR, api + notReady);
    }
    if (executor == nullptr) {
        return Error(ACLNN_ERR_PARAM_NULLPTR, api + "executor is a null pointer");
    }
    const aclOpExecutor* plan = Executors().Find(executor);
    if (plan == nullptr) {
        return Error(ACLNN_ERR_PARAM_INVALID, api + "the executor is unknown, destroyed or has already run (an "
                                                    "executor runs once; a twin-only check)");
    }
    if (workspaceSize < plan->workspaceSize) {
        return Error(ACLNN_ERR_PARAM_INVALID, api + "workspaceSize " + std::to_string(workspaceSize) +
                                                  " is smaller than the " + std::to_string(plan->workspaceSize) +
                                                  " bytes GetWorkspaceSize reported (a twin-only check)");
    }
    if (plan->workspaceSize > 0 && workspace == nullptr) {
        return Error(ACLNN_ERR_PARAM_NULLPTR, api + "workspace is a null pointer");
    }
    if (plan->workspaceSize > 0 && FindAllocation(workspace, plan->workspaceSize) == nullptr) {
        return Error(ACLNN_ERR_PARAM_INVALID, api + "the workspace is not " + std::to_string(plan->workspaceSize) +
                                                  " bytes of device memory from aclrtMalloc (a twin-only check)");
    }
    if (plan->workspaceSize > 0 && reinterpret_cast<uintptr_t>(workspace) % plan->workspaceAlign != 0) {
        return Error(ACLNN_ERR_PARAM_INVALID, api + "the workspace is not aligned to the " +
                                                  std::to_string(plan->workspaceAlign) +
                                                  "-byte elements it holds (a twin-only check)");
    }
    if (!IsStream(stream)) {
        return Error(ACLNN_ERR_PARAM_INVALID, api + "stream is not a live stream");
    }
    const std::unique_ptr<aclOpExecutor> owned = Executors().Take(executor);  // runs once
    // The stream runs the task now; like the NPU, failures surface at aclrtSynchronizeStream.
    const std::string error = owned->Run(static_cast<uint8_t*>(workspace));
    if (!error.empty()) {
        FailStream(stream, error);
    }
    // On an NPU the task is still running: its memory may not be freed before the stream is
    // synchronized.
    std::vector<const void*> memory = owned->Memory();
    memory.push_back(workspace);
    UseUntilSynchronized(stream, api.substr(0, api.find(':')), memory);
    return ACLNN_SUCCESS;
}

}  // namespace twin

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if ((viewDims == nullptr && viewDimsNum > 0) || (stride == nullptr && viewDimsNum > 0) ||
        (storageDims == nullptr && storageDimsNum > 0)) {
        Error(ACLNN_ERR_PARAM_NULLPTR, "aclCreateTensor: viewDims, stride and storageDims must not be null");
        return nullptr;
    }
    const int32_t dtype = twin::RawEnum(dataType);
    const std::string wrong = CheckTensorArguments(viewDims, viewDimsNum, dtype, stride, offset,
                                                   twin::RawEnum(format), storageDims, storageDimsNum);
    if (!wrong.empty()) {
        Error(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: " + wrong);
        return nullptr;
    }
    auto tensor = std::make_unique<aclTensor>(aclTensor{{viewDims, viewDims + viewDimsNum},
                                                        {stride, stride + viewDimsNum},
                                                        offset, dtype, static_cast<uint8_t*>(tensorData), 0, 0, 0});
    const std::string misplaced = PlaceView(tensor.get(), {storageDims, storageDims + storageDimsNum});
    if (!misplaced.empty()) {
        Error(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: " + misplaced);
        return nullptr;
    }
    return Tensors().Insert(std::move(tensor));
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (tensor == nullptr) {
        return Error(ACLNN_ERR_PARAM_NULLPTR, "aclDestroyTensor: tensor is a null pointer");
    }
    if (Tensors().Take(tensor) == nullptr) {
        return Error(ACLNN_ERR_PARAM_INVALID,
                     "aclDestroyTensor: not a live tensor from aclCreateTensor (destroyed already?)");
    }
    return ACLNN_SUCCESS;
}

// CANN documents aclDestroyAclOpExecutor for executors made repeatable with
// aclSetAclOpExecutorRepeatable (https://www.hiascend.com/document/detail/en/canncommercial/850/API/aolapi/operatorlist_00021.html),
// which the twin does not implement; the twin also lets it free an executor that was planned
// and will never run, which CANN does not document.
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor)
{
    std::lock_guard<std::mutex> lock(twin::AclMutex());
    if (executor == nullptr) {
        return Error(ACLNN_ERR_INNER_NULLPTR, "aclDestroyAclOpExecutor: executor is a null pointer");
    }
    if (Executors().Take(executor) == nullptr) {
        return Error(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor: the executor is unknown, destroyed or has "
                                            "already run (a twin-only check)");
    }
    return ACLNN_SUCCESS;
}

}  // extern "C"
