// The CPU twin's stand-in for op_api_ut_common/op_api_ut.h of ops-nn's op_api unit tests
// (tests/ut/op_api/op_api_ut_common/ at ops-nn e5c3fa9): OP_API_UT(api, INPUT(...),
// OUTPUT(...)) binds an aclnn API's phase 1, api##GetWorkspaceSize, to its arguments, and
// TestGetWorkspaceSize calls it, as a test written for ops-nn's harness uses them.
//
// Same macros and member names as ops-nn's, written anew for what the operator's tests use:
// arguments are TensorDesc (made aclTensors for the call, destroyed after it) or aclTensor
// pointers (a null one, to test the API's checks), inputs first, then outputs, then the
// workspace size and executor; an executor the call made is destroyed unrun. ops-nn's
// precision runs and extra (attribute) arguments are left out. On the twin the API is the
// twin library's (kernel/<op>/twin/), which the test program links.
#ifndef MISHGRAD_TWIN_UT_OP_API_UT_H
#define MISHGRAD_TWIN_UT_OP_API_UT_H

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "op_api_ut_common/tensor_desc.h"

namespace mishgrad_twin_ut {

// An argument as the API takes it: a description becomes a tensor that `owned` keeps; a
// tensor pointer passes as it is.
inline aclTensor* ToAcl(const TensorDesc& desc, std::vector<TensorPtr>& owned)
{
    owned.push_back(desc.ToAclType());
    return owned.back().get();
}

inline aclTensor* ToAcl(aclTensor* tensor, std::vector<TensorPtr>&) { return tensor; }

}  // namespace mishgrad_twin_ut

template <typename GetWorkspaceSize, typename Inputs, typename Outputs>
class OpApiUt {
public:
    OpApiUt(GetWorkspaceSize getWorkspaceSize, Inputs inputs, Outputs outputs)
        : getWorkspaceSize_(getWorkspaceSize), inputs_(std::move(inputs)), outputs_(std::move(outputs))
    {}

    // Phase 1 on the arguments: its status, and the workspace size in *workspaceSize (which may
    // be null, to test the API's checks).
    aclnnStatus TestGetWorkspaceSize(uint64_t* workspaceSize)
    {
        std::vector<mishgrad_twin_ut::TensorPtr> owned;  // released after the executor
        aclOpExecutor* executor = nullptr;
        const auto call = [&](const auto&... arguments) {
            return getWorkspaceSize_(mishgrad_twin_ut::ToAcl(arguments, owned)..., workspaceSize, &executor);
        };
        const aclnnStatus status = std::apply(call, std::tuple_cat(inputs_, outputs_));
        if (executor != nullptr) {
            aclDestroyAclOpExecutor(executor);
        }
        return status;
    }

private:
    GetWorkspaceSize getWorkspaceSize_;
    Inputs inputs_;
    Outputs outputs_;
};

#define OP_API_UT(api, input, output) OpApiUt(api##GetWorkspaceSize, input, output)
#define INPUT(...) std::make_tuple(__VA_ARGS__)
#define OUTPUT(...) std::make_tuple(__VA_ARGS__)

#endif  // MISHGRAD_TWIN_UT_OP_API_UT_H
