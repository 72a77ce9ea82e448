// Shape-inference unit test of MishGrad, in the form of ops-nn's op_host tests: the
// registered InferShape of op type MishGrad through a faked InferShapeContext. Built here
// against the CPU twin (make ut); in ops-nn against CANN's (build.sh -u --ophost).
#include <iostream>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "exe_graph/runtime/storage_shape.h"
#include "kernel_run_context_facker.h"
#include "log/log.h"
#include "register/op_impl_registry.h"

namespace {

struct InferResult {
    ge::graphStatus status;
    gert::Shape shape;
    std::string log;  // what InferShape logged with OP_LOGE (recorded by the twin only)
};

// Infers x_grad's shape from grad and x (and tanhx, if given); returns the status, the shape
// and the log.
InferResult InferXGrad(gert::StorageShape grad, gert::StorageShape x, const gert::StorageShape* tanhx = nullptr)
{
    gert::StorageShape tanhxShape = tanhx == nullptr ? x : *tanhx;
    gert::StorageShape xGrad{{7}, {7}};  // a stale shape: inference must replace it
    auto holder = gert::InferShapeContextFaker()
                      .SetOpType("MishGrad")
                      .NodeIoNum(3, 1)
                      .IrInstanceNum({1, 1, tanhx == nullptr ? 0u : 1u})  // tanhx: optional
                      .InputShapes({&grad, &x, &tanhxShape})
                      .OutputShapes({&xGrad})
                      .NodeInputTd(0, ge::DT_FLOAT16, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeInputTd(1, ge::DT_FLOAT16, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeInputTd(2, ge::DT_FLOAT16, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeOutputTd(0, ge::DT_FLOAT16, ge::FORMAT_ND, ge::FORMAT_ND)
                      .Build();
    const auto* impl = gert::OpImplRegistry::GetInstance().GetOpImpl("MishGrad");
    EXPECT_NE(impl, nullptr);
    InferResult result{impl->infer_shape(holder.GetContext<gert::InferShapeContext>()), xGrad.GetOriginShape(), ""};
#ifdef MISHGRAD_TWIN_OP_LOG  // the twin records OP_LOGE; CANN writes it to the device log
    for (const twin::OpError& error : twin::OpErrors()) {
        result.log += error.op + ": " + error.message + "\n";
    }
    twin::OpErrors().clear();
#endif
    return result;
}

// Expects inference to fail and, where the log can be read, to say `reason`.
void ExpectFailure(const InferResult& result, const std::string& reason)
{
    EXPECT_EQ(result.status, ge::GRAPH_FAILED);
#ifdef MISHGRAD_TWIN_OP_LOG
    EXPECT_NE(result.log.find("MishGrad:MishGrad: " + reason), std::string::npos) << result.log;
#else
    (void)reason;
#endif
}

}  // namespace

class MishGradInferShape : public testing::Test {
protected:
    static void SetUpTestCase() { std::cout << "MishGradInferShape SetUp" << std::endl; }
    static void TearDownTestCase() { std::cout << "MishGradInferShape TearDown" << std::endl; }
};

TEST_F(MishGradInferShape, mish_grad_x_grad_has_the_shape_of_x)
{
    const InferResult r = InferXGrad({{4, 3, 2}, {4, 3, 2}}, {{4, 3, 2}, {4, 3, 2}});
    EXPECT_EQ(r.status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(r.shape, (gert::Shape{4, 3, 2}));
}

TEST_F(MishGradInferShape, mish_grad_dynamic_dims_are_kept)
{
    const InferResult r = InferXGrad({{-1, 16}, {-1, 16}}, {{-1, 16}, {-1, 16}});
    EXPECT_EQ(r.status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(r.shape, (gert::Shape{-1, 16}));
}

TEST_F(MishGradInferShape, mish_grad_scalar)
{
    const InferResult r = InferXGrad({{}, {}}, {{}, {}});
    EXPECT_EQ(r.status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(r.shape.GetDimNum(), 0u);
}

// grad and x broadcast as aclnnMishBackward broadcasts them: aligned at the last dimension,
// each pair equal or one of them 1.
TEST_F(MishGradInferShape, mish_grad_broadcasts_grad_and_x)
{
    EXPECT_EQ(InferXGrad({{3, 1}, {3, 1}}, {{1, 4}, {1, 4}}).shape, (gert::Shape{3, 4}));
    EXPECT_EQ(InferXGrad({{2, 3, 4}, {2, 3, 4}}, {{4}, {4}}).shape, (gert::Shape{2, 3, 4}));
    EXPECT_EQ(InferXGrad({{}, {}}, {{5, 1}, {5, 1}}).shape, (gert::Shape{5, 1}));
    EXPECT_EQ(InferXGrad({{0, 1}, {0, 1}}, {{1, 3}, {1, 3}}).shape, (gert::Shape{0, 3}));
    const InferResult r = InferXGrad({{6, 1, 2}, {6, 1, 2}}, {{5, 1}, {5, 1}});
    EXPECT_EQ(r.status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(r.shape, (gert::Shape{6, 5, 2}));
}

TEST_F(MishGradInferShape, mish_grad_broadcasts_tanhx_too)
{
    const gert::StorageShape tanhx{{2, 1, 1}, {2, 1, 1}};
    const InferResult r = InferXGrad({{3, 1}, {3, 1}}, {{1, 4}, {1, 4}}, &tanhx);
    EXPECT_EQ(r.status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(r.shape, (gert::Shape{2, 3, 4}));
}

// An unknown dimension yields to a known one other than 1; an unknown rank makes the result's
// rank unknown.
TEST_F(MishGradInferShape, mish_grad_broadcasts_unknown_dims)
{
    EXPECT_EQ(InferXGrad({{-1, 1}, {-1, 1}}, {{1, 16}, {1, 16}}).shape, (gert::Shape{-1, 16}));
    EXPECT_EQ(InferXGrad({{-1, 4}, {-1, 4}}, {{8, -1}, {8, -1}}).shape, (gert::Shape{8, 4}));
    EXPECT_EQ(InferXGrad({{-1}, {-1}}, {{3, 1}, {3, 1}}).shape, (gert::Shape{3, -1}));
    EXPECT_EQ(InferXGrad({{-2}, {-2}}, {{3, 4}, {3, 4}}).shape, (gert::Shape{-2}));
}

TEST_F(MishGradInferShape, mish_grad_shapes_that_do_not_broadcast_fail)
{
    ExpectFailure(InferXGrad({{3, 2}, {3, 2}}, {{4, 2}, {4, 2}}), "grad [3, 2] and x [4, 2] do not broadcast");
    ExpectFailure(InferXGrad({{2, 3}, {2, 3}}, {{2}, {2}}), "grad [2, 3] and x [2] do not broadcast");
    const gert::StorageShape tanhx{{5}, {5}};
    ExpectFailure(InferXGrad({{2, 3}, {2, 3}}, {{2, 3}, {2, 3}}, &tanhx),
                  "tanhx [5] does not broadcast with grad and x, whose shape is [2, 3]");
}
