// The CPU twin's subset of CANN's acl_base.h: the types, enums and status codes that
// the operators' host code uses, with CANN's names and values (CANN's acl_base.h and acl_base_rt.h,
// error_codes/rt_error_codes.h).
#ifndef MISHGRAD_TWIN_ACL_BASE_H
#define MISHGRAD_TWIN_ACL_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;
typedef void* aclrtStream;

static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
static const int ACL_ERROR_RT_PARAM_INVALID = 107000;
static const int ACL_ERROR_RT_INVALID_DEVICEID = 107001;
static const int ACL_ERROR_RT_CONTEXT_NULL = 107002;
static const int ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
static const int ACL_ERROR_RT_AICORE_EXCEPTION = 507015;

typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_BF16 = 27,
} aclDataType;

typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_FRACTAL_NZ = 29,
} aclFormat;

// The calling thread's error messages since its last call, the latest first, and clears them
// ("" if none). The pointer is valid until the thread's next call.
const char* aclGetRecentErrMsg(void);

// The SoC the runtime runs on ("Ascend910B2"; null if it cannot tell), before or without aclInit
// (CANN's acl_base_rt.h). The twin names $MISHGRAD_TWIN_SOC_NAME if set (null if empty: a host
// without the NPU driver), else "Ascend910B2", the Atlas A2 its launches plan for by default.
const char* aclrtGetSocName(void);

#ifdef __cplusplus
}
#endif

#endif  // MISHGRAD_TWIN_ACL_BASE_H
