// Shape inference of MishGrad, by the elementwise rule: x_grad has x's shape, and grad (and
// tanhx, when given) must have it too, or inference fails with the reason logged (builds on an
// Ascend host only).
//
// The rule is the kernel's: it reads grad and tanhx as arrays of x's length and does not
// broadcast, and the tiling refuses a grad or tanhx of another length. aclnnMishBackward
// broadcasts its inputs before it launches MishGrad, so it never asks for anything else; a
// graph that feeds MishGrad shapes that differ must broadcast them first. The op prototype asks
// for equal shapes (cann/ops-nn e5c3fa9, activation/mish_grad/op_graph/mish_grad_proto.h lines
// 25-30), and opbase's InferShape4Elewise gives an elementwise op its input's shape, an unknown
// rank ([-2]) staying unknown (cann/opbase aa3cd74,
// src/op_common/op_host/infershape_elewise_util.cpp lines 23-38). MishGrad has two or three
// inputs, so the shapes are also compared: a dimension unknown in one shape (-1) takes the
// other's, since both must be equal when the graph runs.
#include <cstdint>
#include <vector>

#include "log/log.h"
#include "register/op_impl_registry.h"

// Relative: ops-nn gives infershape sources no directory of the operator.
#include "../common/mish_grad_contract.h"

namespace ops {
namespace {

constexpr size_t kInputGrad = 0;
constexpr size_t kInputX = 1;
constexpr size_t kInputTanhx = 2;
constexpr size_t kOutputXGrad = 0;
constexpr int64_t kUnknownDim = -1;
constexpr int64_t kUnknownRank = -2;  // a shape of unknown rank is [-2]

std::vector<int64_t> Dims(const gert::Shape& shape)
{
    std::vector<int64_t> dims(shape.GetDimNum());
    for (size_t i = 0; i < dims.size(); ++i) {
        dims[i] = shape.GetDim(i);
    }
    return dims;
}

bool IsUnknownRank(const std::vector<int64_t>& dims) { return dims.size() == 1 && dims[0] == kUnknownRank; }

// The one shape `a` and `b` can both be, into *out: equal ranks, and each pair of dimensions
// equal or one of them unknown. False if they differ.
bool SameShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out)
{
    if (a.size() != b.size()) {
        return false;
    }
    std::vector<int64_t> shape(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] != b[i] && a[i] != kUnknownDim && b[i] != kUnknownDim) {
            return false;
        }
        shape[i] = a[i] == kUnknownDim ? b[i] : a[i];
    }
    *out = shape;
    return true;
}

// Compares `input` (named `name`) with the shape inferred so far, *shape, and narrows it.
bool Matches(gert::InferShapeContext* context, const char* name, const std::vector<int64_t>& input,
             std::vector<int64_t>* shape)
{
    if (IsUnknownRank(input) || IsUnknownRank(*shape)) {
        *shape = {kUnknownRank};
        return true;
    }
    if (!SameShape(*shape, input, shape)) {
        OP_LOGE(context, "%s %s differs from x %s: MishGrad is elementwise and does not broadcast", name,
                mishgrad::ShapeText(input).c_str(), mishgrad::ShapeText(*shape).c_str());
        return false;
    }
    return true;
}

ge::graphStatus InferShapeMishGrad(gert::InferShapeContext* context)
{
    if (context == nullptr) {
        OP_LOGE(context, "the infershape context is null");
        return ge::GRAPH_FAILED;
    }
    const gert::Shape* gradShape = context->GetInputShape(kInputGrad);
    const gert::Shape* xShape = context->GetInputShape(kInputX);
    const gert::Shape* tanhxShape = context->GetOptionalInputShape(kInputTanhx);
    gert::Shape* xGradShape = context->GetOutputShape(kOutputXGrad);
    if (gradShape == nullptr || xShape == nullptr || xGradShape == nullptr) {
        OP_LOGE(context, "input grad or x, or output x_grad, has no shape");
        return ge::GRAPH_FAILED;
    }
    std::vector<int64_t> shape = Dims(*xShape);
    if (!Matches(context, "grad", Dims(*gradShape), &shape) ||
        (tanhxShape != nullptr && !Matches(context, "tanhx", Dims(*tanhxShape), &shape))) {
        return ge::GRAPH_FAILED;
    }
    xGradShape->SetDimNum(0);
    for (int64_t dim : shape) {
        xGradShape->AppendDim(dim);
    }
    return ge::GRAPH_SUCCESS;
}

}  // namespace

IMPL_OP_INFERSHAPE(MishGrad).InferShape(InferShapeMishGrad);

}  // namespace ops
