// aclnnMishBackward: the two-phase aclnn API of MishGrad. The same declarations serve CANN
// (with its aclnn headers) and the CPU twin (with kernel/twin/include).
#ifndef MISHGRAD_ACLNN_MISH_BACKWARD_H
#define MISHGRAD_ACLNN_MISH_BACKWARD_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// Phase 1: checks the arguments, plans the work (contiguous copies, casts, broadcasts, the
// kernel launch and the copy into gradInput's view) and reports the device workspace the
// plan needs. gradInput = gradOutput * dMish/dx(self), broadcast and type-promoted.
aclnnStatus aclnnMishBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                              aclTensor* gradInput, uint64_t* workspaceSize,
                                              aclOpExecutor** executor);

// Phase 2: runs the planned work on `stream` with `workspace` (workspaceSize bytes, at least
// what phase 1 reported). An executor runs once.
aclnnStatus aclnnMishBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                              aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // MISHGRAD_ACLNN_MISH_BACKWARD_H
