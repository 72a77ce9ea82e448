// The CPU twin's acl.h: process initialization, plus the runtime API.
#ifndef MISHGRAD_TWIN_ACL_H
#define MISHGRAD_TWIN_ACL_H

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

aclError aclInit(const char* configPath);
aclError aclFinalize(void);

#ifdef __cplusplus
}
#endif

#endif  // MISHGRAD_TWIN_ACL_H
