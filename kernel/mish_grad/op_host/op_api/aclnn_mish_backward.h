// aclnnMishBackward: the two-phase aclnn API of MishGrad. The same declarations serve CANN
// (with its aclnn headers) and the CPU twin (with kernel/twin/include).
#ifndef MISHGRAD_ACLNN_MISH_BACKWARD_H
#define MISHGRAD_ACLNN_MISH_BACKWARD_H

#include "aclnn/aclnn_base.h"

// Exported as CANN's aclnn headers export their functions: ACLNN_API, which CANN's
// aclnn_util.h defines as default visibility, so the two symbols stay visible in an op_api
// library built with hidden visibility. The same definition is given here for builds that do
// not have aclnn_util.h on their include path (the example, the twin); an identical
// redefinition is allowed.
#ifndef ACLNN_API
#define ACLNN_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

// Phase 1: checks the arguments, plans the work (contiguous copies, casts, broadcasts, the
// kernel launch and the copy into gradInput's view) and reports the device workspace the
// plan needs. gradInput = gradOutput * dMish/dx(self), broadcast and type-promoted.
ACLNN_API aclnnStatus aclnnMishBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                        aclTensor* gradInput, uint64_t* workspaceSize,
                                                        aclOpExecutor** executor);

// Phase 2: runs the planned work on `stream` with `workspace` (workspaceSize bytes, at least
// what phase 1 reported). An executor runs once.
ACLNN_API aclnnStatus aclnnMishBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // MISHGRAD_ACLNN_MISH_BACKWARD_H
