// Shape inference of MishGrad: x_grad has the shape of x (builds on an Ascend host only).
#include "register/op_impl_registry.h"

namespace ops {
namespace {

constexpr size_t kInputX = 1;
constexpr size_t kOutputXGrad = 0;

ge::graphStatus InferShapeMishGrad(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(kInputX);
    gert::Shape* xGradShape = context->GetOutputShape(kOutputXGrad);
    if (xShape == nullptr || xGradShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *xGradShape = *xShape;
    return ge::GRAPH_SUCCESS;
}

}  // namespace

IMPL_OP_INFERSHAPE(MishGrad).InferShape(InferShapeMishGrad);

}  // namespace ops
