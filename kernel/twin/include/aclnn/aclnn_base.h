// The CPU twin's subset of CANN's aclnn base header: tensors, executors and aclnnStatus.
#ifndef MISHGRAD_TWIN_ACLNN_BASE_H
#define MISHGRAD_TWIN_ACLNN_BASE_H

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aclnnStatus;
typedef struct aclTensor aclTensor;
typedef struct aclOpExecutor aclOpExecutor;

static const aclnnStatus ACLNN_SUCCESS = 0;
static const aclnnStatus ACLNN_ERR_PARAM_NULLPTR = 161001;
static const aclnnStatus ACLNN_ERR_PARAM_INVALID = 161002;
static const aclnnStatus ACLNN_ERR_RUNTIME_ERROR = 361001;
static const aclnnStatus ACLNN_ERR_INNER = 561000;
static const aclnnStatus ACLNN_ERR_INNER_NULLPTR = 561103;

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData);
aclnnStatus aclDestroyTensor(const aclTensor* tensor);
// Frees an executor that will not run (CANN: one made repeatable; the twin: any not yet run).
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor);

#ifdef __cplusplus
}
#endif

#endif  // MISHGRAD_TWIN_ACLNN_BASE_H
