// The CPU twin's stand-in for op_api_ut_common/tensor_desc.h of ops-nn's op_api unit tests
// (tests/ut/op_api/op_api_ut_common/ at ops-nn e5c3fa9): a tensor described by its view dims,
// dtype, format, strides (none: contiguous), offset and storage dims (none: the view's), made
// an aclTensor when a test calls the API (op_api_ut.h).
//
// Same class name and constructor as ops-nn's, written anew; the value, range and precision
// settings of ops-nn's TensorDesc, which feed only its precision runs, are left out (no test here
// uses them). ops-nn's harness creates the tensor over no memory and, for a contiguous view, no
// strides; the twin's aclCreateTensor wants both (kernel/twin/src/aclnn.cpp), so this one writes a
// contiguous view's strides and takes the storage from aclrtMalloc, the runtime started first
// (the twin's aclnn refuses a call before aclInit and aclrtSetDevice).
#ifndef MISHGRAD_TWIN_UT_TENSOR_DESC_H
#define MISHGRAD_TWIN_UT_TENSOR_DESC_H

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "twin/aclnn.h"
#include "twin/views.h"

namespace mishgrad_twin_ut {

inline std::runtime_error RuntimeFailure(const std::string& what)
{
    return std::runtime_error(what + ": " + aclGetRecentErrMsg());
}

// aclInit and device 0, once per process.
inline void StartRuntime()
{
    static const bool started = [] {
        const aclError init = aclInit(nullptr);
        if ((init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) || aclrtSetDevice(0) != ACL_SUCCESS) {
            throw RuntimeFailure("the twin's runtime did not start");
        }
        return true;
    }();
    static_cast<void>(started);
}

// Destroys the tensor (if there is one), then frees its storage.
struct TensorRelease {
    void* storage = nullptr;
    void operator()(aclTensor* tensor) const
    {
        if (tensor != nullptr) {
            aclDestroyTensor(tensor);
        }
        if (storage != nullptr) {
            aclrtFree(storage);
        }
    }
};

using TensorPtr = std::unique_ptr<aclTensor, TensorRelease>;

// The strides, in elements, of a contiguous view of `dims`.
inline std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims)
{
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t i = dims.size(); i > 1; --i) {
        strides[i - 2] = strides[i - 1] * dims[i - 1];
    }
    return strides;
}

}  // namespace mishgrad_twin_ut

class TensorDesc {
public:
    TensorDesc(const std::vector<int64_t>& view_dims = {1, 1, 16, 16}, aclDataType data_type = ACL_FLOAT,
               aclFormat format = ACL_FORMAT_NCHW, const std::vector<int64_t>& stride = {}, int64_t offset = 0,
               const std::vector<int64_t>& storage_dims = {})
        : view_dims_(view_dims),
          data_type_(data_type),
          format_(format),
          stride_(stride.empty() ? mishgrad_twin_ut::ContiguousStrides(view_dims) : stride),
          offset_(offset),
          storage_dims_(storage_dims.empty() ? view_dims : storage_dims)
    {}

    // The tensor over storage of its own; throws if the twin refuses either.
    mishgrad_twin_ut::TensorPtr ToAclType() const
    {
        mishgrad_twin_ut::StartRuntime();
        int64_t elements = 0;
        if (!twin::ElementCount(storage_dims_, &elements)) {
            elements = 0;  // storage dims the twin refuses get no storage: aclCreateTensor says why
        }
        const int64_t bytes = elements * twin::ElementSize(data_type_);
        mishgrad_twin_ut::TensorRelease release;
        if (bytes > 0 && aclrtMalloc(&release.storage, static_cast<size_t>(bytes), ACL_MEM_MALLOC_HUGE_FIRST) !=
                             ACL_SUCCESS) {
            throw mishgrad_twin_ut::RuntimeFailure("aclrtMalloc of a tensor's storage failed");
        }
        aclTensor* tensor = aclCreateTensor(view_dims_.data(), view_dims_.size(), data_type_, stride_.data(), offset_,
                                            format_, storage_dims_.data(), storage_dims_.size(), release.storage);
        if (tensor == nullptr) {
            const std::runtime_error failure = mishgrad_twin_ut::RuntimeFailure("aclCreateTensor refused the description");
            release(nullptr);
            throw failure;
        }
        return mishgrad_twin_ut::TensorPtr(tensor, release);
    }

private:
    std::vector<int64_t> view_dims_;
    aclDataType data_type_;
    aclFormat format_;
    std::vector<int64_t> stride_;
    int64_t offset_;
    std::vector<int64_t> storage_dims_;
};

#endif  // MISHGRAD_TWIN_UT_TENSOR_DESC_H
