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

// The elementwise rule: grad, x and tanhx have one shape, x_grad's; MishGrad does not broadcast
// (aclnnMishBackward broadcasts before it launches the kernel).
TEST_F(MishGradInferShape, mish_grad_shapes_that_differ_fail)
{
    ExpectFailure(InferXGrad({{3, 1}, {3, 1}}, {{1, 4}, {1, 4}}),
                  "grad [3, 1] differs from x [1, 4]: MishGrad is elementwise and does not broadcast");
    ExpectFailure(InferXGrad({{2, 3, 4}, {2, 3, 4}}, {{4}, {4}}), "grad [2, 3, 4] differs from x [4]");
    ExpectFailure(InferXGrad({{}, {}}, {{5, 1}, {5, 1}}), "grad [] differs from x [5, 1]");
    const gert::StorageShape tanhx{{2, 3, 1}, {2, 3, 1}};
    ExpectFailure(InferXGrad({{2, 3}, {2, 3}}, {{2, 3}, {2, 3}}, &tanhx), "tanhx [2, 3, 1] differs from x [2, 3]");
}

TEST_F(MishGradInferShape, mish_grad_tanhx_of_x_s_shape)
{
    const gert::StorageShape tanhx{{2, 3}, {2, 3}};
    const InferResult r = InferXGrad({{2, 3}, {2, 3}}, {{2, 3}, {2, 3}}, &tanhx);
    EXPECT_EQ(r.status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(r.shape, (gert::Shape{2, 3}));
}

// A dimension unknown in one shape takes the other's (equal when the graph runs); two known ones
// that differ fail; an unknown rank makes the result's rank unknown.
TEST_F(MishGradInferShape, mish_grad_unknown_dims_take_the_known_ones)
{
    EXPECT_EQ(InferXGrad({{-1, 16}, {-1, 16}}, {{8, -1}, {8, -1}}).shape, (gert::Shape{8, 16}));
    const gert::StorageShape tanhx{{-1, 4}, {-1, 4}};
    EXPECT_EQ(InferXGrad({{-1, -1}, {-1, -1}}, {{3, -1}, {3, -1}}, &tanhx).shape, (gert::Shape{3, 4}));
    ExpectFailure(InferXGrad({{-1, 16}, {-1, 16}}, {{8, 4}, {8, 4}}), "grad [-1, 16] differs from x [8, 4]");
    EXPECT_EQ(InferXGrad({{-2}, {-2}}, {{3, 4}, {3, 4}}).shape, (gert::Shape{-2}));
    EXPECT_EQ(InferXGrad({{3, 4}, {3, 4}}, {{-2}, {-2}}).shape, (gert::Shape{-2}));
}
