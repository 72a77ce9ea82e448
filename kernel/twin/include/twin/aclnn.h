// The twin's aclnn machinery, on which an operator's twin glue builds its two phases: the
// tensors aclCreateTensor makes, executors that run once, an elementwise operator's plan as
// CANN's executor makes it, and phase 2 for any executor. It names no operator.
//
// Every function here expects the caller to hold twin::AclMutex(), except RunExecutor, which
// takes it (phase 2 is the whole call).
#ifndef MISHGRAD_TWIN_ACLNN_H
#define MISHGRAD_TWIN_ACLNN_H

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"

struct aclTensor {
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;  // in elements
    int64_t offset;                // in elements, from `data`
    int32_t dtype;                 // an aclDataType value, checked
    uint8_t* data;
    int64_t firstByte;             // the bytes the view can touch: [firstByte, endByte) from data
    int64_t endByte;               // (0 and 0 for an empty view)
    uint64_t generation;           // of the device allocation holding the storage (0: no storage)
};

// What phase 1 planned, run once by phase 2 (twin::RunExecutor).
struct aclOpExecutor {
    virtual ~aclOpExecutor() = default;
    uint64_t workspaceSize = 0;
    uint32_t workspaceAlign = 1;  // the workspace's start must be a multiple of this
    // Runs the plan with `workspace` (workspaceSize bytes): "" or what went wrong, which the
    // stream reports at aclrtSynchronizeStream, as the NPU does.
    virtual std::string Run(uint8_t* workspace) const = 0;
    // The device memory the task reads and writes besides its workspace (its tensors' storage).
    virtual std::vector<const void*> Memory() const = 0;
};

namespace twin {

// The element size of an aclDataType value the twin defines; 0 for any other value.
uint32_t ElementSize(int32_t dtype);

// The live tensor behind a handle from aclCreateTensor; nullptr for null, destroyed or unknown.
const aclTensor* FindTensor(const aclTensor* tensor);

// Runs an elementwise kernel: inputs and output are contiguous buffers of `dtype` holding
// `elements` elements, `kernelWorkspace` is the kernel's own. Returns "" or an error.
using ElementwiseKernel = std::string (*)(int32_t dtype, const std::vector<uint8_t*>& inputs, uint8_t* out,
                                          uint8_t* kernelWorkspace, uint64_t elements);

// An elementwise operator's work: out = kernel(inputs), broadcast to `shape` and computed in
// `computeDtype`, with the operator's contract already checked.
struct ElementwiseOp {
    std::string name;               // the phase-2 function, for messages
    std::vector<int64_t> shape;     // the broadcast shape, the output's
    int32_t computeDtype;           // an aclDataType value
    uint64_t kernelWorkspaceBytes;  // what the kernel itself asks for beyond the system's
    ElementwiseKernel kernel;
};

// Plans `op` as CANN's executor would: gather each input into a contiguous buffer of the
// computation dtype where it is strided, broadcast or of another dtype; launch the kernel; copy
// the result into `out`'s view, casting to its dtype. The workspace is exactly the bytes of
// those buffers and of the kernel's own workspace. Sets *workspaceSize and *executor; an error
// status (message recorded under `api`) if the workspace would exceed 2^64 bytes.
aclnnStatus PlanElementwise(const std::string& api, const ElementwiseOp& op,
                            const std::vector<const aclTensor*>& inputs, const aclTensor& out,
                            uint64_t* workspaceSize, aclOpExecutor** executor);

// Phase 2 of any operator: checks the workspace, the executor and the stream, then runs the
// executor once on the stream (its failures surface at aclrtSynchronizeStream). `api` prefixes
// the messages ("aclnnX: ").
aclnnStatus RunExecutor(const std::string& api, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream);

}  // namespace twin

#endif  // MISHGRAD_TWIN_ACLNN_H
