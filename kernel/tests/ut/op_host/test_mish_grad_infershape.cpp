// Shape-inference unit test of MishGrad, in the form of ops-nn's op_host tests: the
// registered InferShape of op type MishGrad through a faked InferShapeContext. Built here
// against the CPU twin (make ut); in ops-nn against CANN's (build.sh -u --ophost).
#include <iostream>

#include <gtest/gtest.h>

#include "exe_graph/runtime/storage_shape.h"
#include "kernel_run_context_facker.h"
#include "register/op_impl_registry.h"

namespace {

// Infers x_grad's shape from grad and x of `shape`; returns the status and the shape.
std::pair<ge::graphStatus, gert::Shape> InferXGrad(gert::StorageShape grad, gert::StorageShape x)
{
    gert::StorageShape xGrad{{7}, {7}};  // a stale shape: inference must replace it
    auto holder = gert::InferShapeContextFaker()
                      .SetOpType("MishGrad")
                      .NodeIoNum(2, 1)
                      .IrInstanceNum({1, 1})
                      .InputShapes({&grad, &x})
                      .OutputShapes({&xGrad})
                      .NodeInputTd(0, ge::DT_FLOAT16, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeInputTd(1, ge::DT_FLOAT16, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeOutputTd(0, ge::DT_FLOAT16, ge::FORMAT_ND, ge::FORMAT_ND)
                      .Build();
    const auto* impl = gert::OpImplRegistry::GetInstance().GetOpImpl("MishGrad");
    EXPECT_NE(impl, nullptr);
    const ge::graphStatus status = impl->infer_shape(holder.GetContext<gert::InferShapeContext>());
    return {status, xGrad.GetOriginShape()};
}

}  // namespace

class MishGradInferShape : public testing::Test {
protected:
    static void SetUpTestCase() { std::cout << "MishGradInferShape SetUp" << std::endl; }
    static void TearDownTestCase() { std::cout << "MishGradInferShape TearDown" << std::endl; }
};

TEST_F(MishGradInferShape, mish_grad_x_grad_has_the_shape_of_x)
{
    const auto [status, shape] = InferXGrad({{4, 3, 2}, {4, 3, 2}}, {{4, 3, 2}, {4, 3, 2}});
    EXPECT_EQ(status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(shape, (gert::Shape{4, 3, 2}));
}

TEST_F(MishGradInferShape, mish_grad_dynamic_dims_are_kept)
{
    const auto [status, shape] = InferXGrad({{-1, 16}, {-1, 16}}, {{-1, 16}, {-1, 16}});
    EXPECT_EQ(status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(shape, (gert::Shape{-1, 16}));
}

TEST_F(MishGradInferShape, mish_grad_scalar)
{
    const auto [status, shape] = InferXGrad({{}, {}}, {{}, {}});
    EXPECT_EQ(status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(shape.GetDimNum(), 0u);
}
