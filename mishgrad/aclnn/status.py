"""ACL and aclnn status codes, and the exception a failed call raises."""

from typing import Final

#: Status codes (CANN's acl_base_rt.h and error_codes/rt_error_codes.h; the aclnn return codes page,
#: https://www.hiascend.com/document/detail/en/canncommercial/850/API/aolapi/atlasascendc_api_07_1205.html).
STATUS_NAMES: Final[dict[int, str]] = {
    0: "SUCCESS",
    100000: "ACL_ERROR_INVALID_PARAM",
    100001: "ACL_ERROR_UNINITIALIZE",
    100002: "ACL_ERROR_REPEAT_INITIALIZE",
    100003: "ACL_ERROR_INVALID_FILE",
    100037: "ACL_ERROR_REPEAT_FINALIZE",
    107000: "ACL_ERROR_RT_PARAM_INVALID",
    107001: "ACL_ERROR_RT_INVALID_DEVICEID",
    107002: "ACL_ERROR_RT_CONTEXT_NULL",
    161001: "ACLNN_ERR_PARAM_NULLPTR",
    161002: "ACLNN_ERR_PARAM_INVALID",
    207001: "ACL_ERROR_RT_MEMORY_ALLOCATION",
    361001: "ACLNN_ERR_RUNTIME_ERROR",
    507015: "ACL_ERROR_RT_AICORE_EXCEPTION",
    561000: "ACLNN_ERR_INNER",
    561001: "ACLNN_ERR_INNER_INFERSHAPE_ERROR",
    561002: "ACLNN_ERR_INNER_TILING_ERROR",
    561101: "ACLNN_ERR_INNER_CREATE_EXECUTOR",
    561103: "ACLNN_ERR_INNER_NULLPTR",
}


class AclError(RuntimeError):
    """A status ``code`` other than success, which the ACL or aclnn function ``api`` returned."""

    def __init__(self, code: int, api: str, message: str) -> None:
        # message: what aclGetRecentErrMsg returned, the calling thread's messages since it
        # last read them, the latest first (reading clears them)
        self.code, self.api, self.message = code, api, message
        self.name = STATUS_NAMES.get(code, "UNKNOWN")  # ACLNN_ERR_PARAM_INVALID, ...
        super().__init__(f"{api} returned {code} ({self.name}): {message}")
