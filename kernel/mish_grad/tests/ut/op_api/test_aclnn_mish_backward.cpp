// aclnnMishBackward's first phase, in the form of ops-nn's op_api tests: each case describes
// gradOutput, self and gradInput with TensorDesc and expects the status that
// aclnnMishBackwardGetWorkspaceSize documents (common/mish_grad_contract.h: ops-nn's
// aclnnMishBackward.md): ACLNN_ERR_PARAM_NULLPTR for a null pointer; ACLNN_ERR_PARAM_INVALID for
// a dtype other than FLOAT, FLOAT16, BFLOAT16, shapes that do not broadcast, a gradInput whose
// shape is not the broadcast shape, or more than 8 dimensions; success otherwise, whatever the
// strides and format, with no workspace for an empty result (op_host/op_api/aclnn_mish_backward.cpp).
//
// In ops-nn (build.sh -u --opapi) the API is op_host/op_api/ on CANN's nnopbase; on the CPU twin
// (make ut), the twin library, which makes the same checks (both call CheckMishBackward).
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "op_api_ut_common/op_api_ut.h"
#include "op_api_ut_common/tensor_desc.h"

#include "../../../op_host/op_api/aclnn_mish_backward.h"

namespace {

aclTensor* const kNull = nullptr;

// Phase 1 on (gradOutput, self) -> gradInput, each a TensorDesc or kNull: its status.
template <typename Grad, typename Self, typename Out>
aclnnStatus Phase1(const Grad& gradOutput, const Self& self, const Out& gradInput, uint64_t* workspaceSize)
{
    auto ut = OP_API_UT(aclnnMishBackward, INPUT(gradOutput, self), OUTPUT(gradInput));
    return ut.TestGetWorkspaceSize(workspaceSize);
}

template <typename Grad, typename Self, typename Out>
aclnnStatus Phase1(const Grad& gradOutput, const Self& self, const Out& gradInput)
{
    uint64_t workspaceSize = 0;
    return Phase1(gradOutput, self, gradInput, &workspaceSize);
}

TensorDesc Nd(const std::vector<int64_t>& dims, aclDataType dtype = ACL_FLOAT)
{
    return TensorDesc(dims, dtype, ACL_FORMAT_ND);
}

}  // namespace

class l2_mish_backward_test : public testing::Test {};

TEST_F(l2_mish_backward_test, mish_backward_001_normal_each_dtype)
{
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        EXPECT_EQ(Phase1(Nd({2, 5}, dtype), Nd({2, 5}, dtype), Nd({2, 5}, dtype)), ACLNN_SUCCESS) << dtype;
    }
}

TEST_F(l2_mish_backward_test, mish_backward_002_normal_mixed_dtypes_promote)
{
    EXPECT_EQ(Phase1(Nd({2, 5}, ACL_FLOAT16), Nd({2, 5}, ACL_BF16), Nd({2, 5})), ACLNN_SUCCESS);
    EXPECT_EQ(Phase1(Nd({2, 5}), Nd({2, 5}, ACL_FLOAT16), Nd({2, 5}, ACL_FLOAT16)), ACLNN_SUCCESS);
}

TEST_F(l2_mish_backward_test, mish_backward_003_exception_null_tensors)
{
    EXPECT_EQ(Phase1(kNull, Nd({2, 5}), Nd({2, 5})), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(Phase1(Nd({2, 5}), kNull, Nd({2, 5})), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(Phase1(Nd({2, 5}), Nd({2, 5}), kNull), ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(l2_mish_backward_test, mish_backward_004_exception_null_workspace_size)
{
    EXPECT_EQ(Phase1(Nd({2, 5}), Nd({2, 5}), Nd({2, 5}), nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(l2_mish_backward_test, mish_backward_005_exception_dtype_not_supported)
{
    EXPECT_EQ(Phase1(Nd({2, 5}, ACL_DOUBLE), Nd({2, 5}), Nd({2, 5})), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(Phase1(Nd({2, 5}), Nd({2, 5}, ACL_INT32), Nd({2, 5})), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(Phase1(Nd({2, 5}), Nd({2, 5}), Nd({2, 5}, ACL_INT32)), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(Phase1(Nd({2, 5}), Nd({2, 5}), Nd({2, 5}, ACL_DOUBLE)), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(l2_mish_backward_test, mish_backward_006_normal_broadcast)
{
    EXPECT_EQ(Phase1(Nd({4, 1}), Nd({1, 3}), Nd({4, 3})), ACLNN_SUCCESS);
    EXPECT_EQ(Phase1(Nd({3}), Nd({2, 4, 3}), Nd({2, 4, 3})), ACLNN_SUCCESS);
}

TEST_F(l2_mish_backward_test, mish_backward_007_exception_shapes_do_not_broadcast)
{
    EXPECT_EQ(Phase1(Nd({2, 3}), Nd({4, 3}), Nd({4, 3})), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(Phase1(Nd({16, 16}), Nd({0}), Nd({16, 16})), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(l2_mish_backward_test, mish_backward_008_exception_grad_input_not_the_broadcast_shape)
{
    EXPECT_EQ(Phase1(Nd({1, 16, 1, 1}), Nd({1, 1, 4, 4}), Nd({1, 16, 1, 1})), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(Phase1(Nd({2, 5}), Nd({2, 5}), Nd({5, 2})), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(l2_mish_backward_test, mish_backward_009_rank_limit)
{
    const std::vector<int64_t> eight{1, 2, 1, 2, 1, 2, 1, 2};
    const std::vector<int64_t> nine{1, 2, 1, 2, 1, 2, 1, 2, 1};
    EXPECT_EQ(Phase1(Nd(eight), Nd(eight), Nd(eight)), ACLNN_SUCCESS);
    EXPECT_EQ(Phase1(Nd(nine), Nd(nine), Nd(nine)), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(Phase1(Nd({}), Nd({}), Nd({})), ACLNN_SUCCESS);  // a scalar
}

TEST_F(l2_mish_backward_test, mish_backward_010_normal_empty_tensors_need_no_workspace)
{
    uint64_t workspaceSize = 1;
    EXPECT_EQ(Phase1(Nd({0}), Nd({0}), Nd({0}), &workspaceSize), ACLNN_SUCCESS);
    EXPECT_EQ(workspaceSize, 0U);
    workspaceSize = 1;
    EXPECT_EQ(Phase1(Nd({0, 3}), Nd({1, 3}), Nd({0, 3}), &workspaceSize), ACLNN_SUCCESS);
    EXPECT_EQ(workspaceSize, 0U);
}

TEST_F(l2_mish_backward_test, mish_backward_011_normal_not_contiguous)
{
    // The transpose of a 5 x 2 storage, for the inputs and for gradInput.
    const TensorDesc transposed({2, 5}, ACL_FLOAT, ACL_FORMAT_ND, {1, 2}, 0, {5, 2});
    EXPECT_EQ(Phase1(transposed, transposed, Nd({2, 5})), ACLNN_SUCCESS);
    EXPECT_EQ(Phase1(Nd({2, 5}), Nd({2, 5}), transposed), ACLNN_SUCCESS);
    // Every other element of a longer storage, from an offset.
    const TensorDesc strided({2, 5}, ACL_FLOAT16, ACL_FORMAT_ND, {10, 2}, 1, {20});
    EXPECT_EQ(Phase1(strided, Nd({2, 5}, ACL_FLOAT16), Nd({2, 5}, ACL_FLOAT16)), ACLNN_SUCCESS);
}

TEST_F(l2_mish_backward_test, mish_backward_012_normal_format_is_not_checked)
{
    const TensorDesc nchw({2, 4, 3, 3}, ACL_FLOAT, ACL_FORMAT_NCHW);
    EXPECT_EQ(Phase1(nchw, nchw, Nd({2, 4, 3, 3})), ACLNN_SUCCESS);
}
