// The contract of aclnnMishBackwardGetWorkspaceSize as pure functions on dtypes and shapes.
//
// CANN's op_api adapter (op_host/op_api/aclnn_mish_backward.cpp) and the CPU twin's ABI
// (twin/mish_grad_twin.cpp) both call CheckMishBackward, so the error table is one piece of
// code; the dtypes are mish_grad_dtypes.h's.
//
// Documented by CANN: ops-nn's aclnnMishBackward.md at e5c3fa9 (activation/mish_grad/docs,
// lines 138-169) lists a null gradOutput, self or gradInput as ACLNN_ERR_PARAM_NULLPTR
// (161001), and a dtype outside FLOAT, FLOAT16, BFLOAT16, a gradOutput that does not
// broadcast with self, or more than 8 dimensions as ACLNN_ERR_PARAM_INVALID (161002); ops-nn's
// adapter (activation/mish_grad/op_api/aclnn_mish_backward.cpp, lines 64-103) also refuses,
// with 161002, an output dtype the result cannot be cast to and a gradInput whose shape is not
// the broadcast shape. Our own addition, refused the same way: a shape with a negative dimension
// or more elements than int64 counts (every count here uses checked arithmetic, never wrapped).
//
// Not here, because CANN's adapter does not check them: the twin's own checks (twin-only; on
// CANN such a call's behaviour is undefined), all in the twin (kernel/twin: src/aclnn.cpp and
// src/views.cpp) and this operator's glue to it (twin/mish_grad_twin.cpp):
// a gradInput view that overlaps itself, a tensor handle that is not live, storage freed
// before phase 2, an executor run twice, and a workspace smaller than phase 1 reported, not
// from aclrtMalloc or misaligned. Their status codes are the twin's choice.
#ifndef MISHGRAD_COMMON_CONTRACT_H
#define MISHGRAD_COMMON_CONTRACT_H

#include <cstdint>
#include <string>
#include <vector>

#include "mish_grad_dtypes.h"

namespace mishgrad {

// aclnnStatus values (CANN's aclnn/acl_meta.h; listed in ops-nn's docs/zh/context/aclnn_return_code.md at
// e5c3fa9, lines 8-14).
enum StatusCode : int32_t {
    kAclnnSuccess = 0,
    kAclnnErrParamNullptr = 161001,
    kAclnnErrParamInvalid = 161002,
    kAclnnErrRuntimeError = 361001,
    kAclnnErrInner = 561000,
};

constexpr size_t kMaxDims = 8;

inline bool IsFloating(int32_t dtype)
{
    return IsSupportedDtype(dtype) || dtype == kDtDouble;
}

// The number of elements of `shape` in *count; false if a dimension is negative or the count
// does not fit int64. A zero dimension makes the count 0 whatever the other dimensions are.
inline bool ElementCount(const std::vector<int64_t>& shape, int64_t* count)
{
    int64_t total = 1;
    bool overflow = false;
    for (int64_t dim : shape) {
        if (dim < 0) {
            return false;
        }
        overflow = __builtin_mul_overflow(total, dim, &total) || overflow;
    }
    for (int64_t dim : shape) {
        if (dim == 0) {
            *count = 0;
            return true;
        }
    }
    *count = total;
    return !overflow;
}

// Type promotion of gradOutput and self: equal types stay; float16 with bfloat16 has no
// common 16-bit type and goes to float32; anything with float32 is float32.
inline int32_t PromoteDtype(int32_t a, int32_t b)
{
    return a == b ? a : kDtFloat;
}

// A result of floating type can be cast to any floating type (possibly losing precision),
// never implicitly to an integer or boolean one.
inline bool CanCastResult(int32_t from, int32_t to)
{
    return IsFloating(from) && IsFloating(to);
}

// NumPy-style broadcasting: shapes are aligned at their last dimension; each pair of
// dimensions must be equal or contain a 1. Returns false if they do not broadcast.
inline bool BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out)
{
    const size_t rank = a.size() > b.size() ? a.size() : b.size();
    std::vector<int64_t> shape(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1) {
            return false;
        }
        shape[i] = da == 1 ? db : da;
    }
    *out = shape;
    return true;
}

inline std::string ShapeText(const std::vector<int64_t>& shape)
{
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        text += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return text + "]";
}

// What the first phase needs to know about one tensor.
struct TensorInfo {
    bool present;
    int32_t dtype;
    std::vector<int64_t> shape;
};

struct ContractResult {
    int32_t status;                     // a StatusCode
    std::string message;                // empty on success
    std::vector<int64_t> broadcastShape;
    int32_t computeDtype;               // the promoted dtype the kernel computes in
};

// The parameter checks of aclnnMishBackwardGetWorkspaceSize: null pointers, the input dtypes,
// whether the result can be cast to the output's dtype (a floating result cannot become an
// integer), the output dtype, the number of dimensions, the element counts, broadcasting, the
// output shape.
inline ContractResult CheckMishBackward(const TensorInfo& gradOutput, const TensorInfo& self, const TensorInfo& gradInput)
{
    const TensorInfo* tensors[] = {&gradOutput, &self, &gradInput};
    const char* names[] = {"gradOutput", "self", "gradInput"};
    for (int i = 0; i < 3; ++i) {
        if (!tensors[i]->present) {
            return {kAclnnErrParamNullptr, std::string(names[i]) + " is a null pointer", {}, 0};
        }
    }
    for (int i = 0; i < 2; ++i) {
        if (!IsSupportedDtype(tensors[i]->dtype)) {
            return {kAclnnErrParamInvalid,
                    std::string(names[i]) + " has dtype " + DtypeName(tensors[i]->dtype) +
                        "; supported: FLOAT, FLOAT16, BFLOAT16",
                    {}, 0};
        }
    }
    const int32_t compute = PromoteDtype(gradOutput.dtype, self.dtype);
    if (!CanCastResult(compute, gradInput.dtype)) {
        return {kAclnnErrParamInvalid,
                std::string("the result (") + DtypeName(compute) + ") cannot be cast to gradInput's dtype " +
                    DtypeName(gradInput.dtype),
                {}, 0};
    }
    if (!IsSupportedDtype(gradInput.dtype)) {
        return {kAclnnErrParamInvalid,
                std::string("gradInput has dtype ") + DtypeName(gradInput.dtype) +
                    "; supported: FLOAT, FLOAT16, BFLOAT16",
                {}, 0};
    }
    for (int i = 0; i < 3; ++i) {
        if (tensors[i]->shape.size() > kMaxDims) {
            return {kAclnnErrParamInvalid,
                    std::string(names[i]) + " has " + std::to_string(tensors[i]->shape.size()) +
                        " dimensions; at most " + std::to_string(kMaxDims) + " are supported",
                    {}, 0};
        }
    }
    for (int i = 0; i < 3; ++i) {
        int64_t count = 0;
        if (!ElementCount(tensors[i]->shape, &count)) {
            return {kAclnnErrParamInvalid,
                    std::string(names[i]) + " has shape " + ShapeText(tensors[i]->shape) +
                        ": a negative dimension, or more elements than int64 counts",
                    {}, 0};
        }
    }
    std::vector<int64_t> shape;
    if (!BroadcastShapes(gradOutput.shape, self.shape, &shape)) {
        return {kAclnnErrParamInvalid,
                "gradOutput " + ShapeText(gradOutput.shape) + " and self " + ShapeText(self.shape) +
                    " do not broadcast",
                {}, 0};
    }
    if (gradInput.shape != shape) {
        return {kAclnnErrParamInvalid,
                "gradInput has shape " + ShapeText(gradInput.shape) + " but the broadcast shape is " +
                    ShapeText(shape),
                {}, 0};
    }
    return {kAclnnSuccess, "", shape, compute};
}

}  // namespace mishgrad

#endif  // MISHGRAD_COMMON_CONTRACT_H
