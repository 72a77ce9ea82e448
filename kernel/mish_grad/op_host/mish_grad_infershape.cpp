// Shape inference of MishGrad: x_grad has the broadcast shape of grad, x and tanhx (builds on
// an Ascend host only).
//
// The rule is aclnnMishBackward's (common/mish_grad_contract.h, BroadcastShapes): shapes are
// aligned at their last dimension, and each pair of dimensions must be equal or contain a 1.
// Shapes that do not broadcast fail with the reason logged. Two cases the contract never sees,
// because the aclnn API gets concrete tensors, are handled as opbase's broadcast inference
// handles them (cann/opbase aa3cd74, src/op_common/op_host/infershape_broadcast_util.cpp lines
// 24-99): an unknown dimension (-1) takes the other shape's dimension unless that is 1, and an
// unknown rank ([-2]) makes the result's rank unknown.
//
// The kernel itself does not broadcast: aclnnMishBackward broadcasts its inputs before it
// launches MishGrad, and the tiling refuses a grad or tanhx whose length differs from x's.
// Where the three shapes are equal, as the op prototype asks for (cann/ops-nn e5c3fa9,
// activation/mish_grad/op_graph/mish_grad_proto.h lines 25-30), the result is that shape.
#include <cstdint>
#include <string>
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

// The contract's broadcast with unknown dimensions: each -1 is broadcast as a 1 would be, so it
// yields to the other shape's dimension, and stays -1 where that is 1 or absent.
bool Broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out)
{
    if (IsUnknownRank(a) || IsUnknownRank(b)) {
        *out = {kUnknownRank};
        return true;
    }
    auto known = [](std::vector<int64_t> dims) {
        for (int64_t& dim : dims) {
            dim = dim == kUnknownDim ? 1 : dim;
        }
        return dims;
    };
    if (!mishgrad::BroadcastShapes(known(a), known(b), out)) {
        return false;
    }
    const size_t rank = out->size();
    auto unknownAt = [rank](const std::vector<int64_t>& dims, size_t i) {
        return i >= rank - dims.size() && dims[i - (rank - dims.size())] == kUnknownDim;
    };
    for (size_t i = 0; i < rank; ++i) {
        if ((*out)[i] == 1 && (unknownAt(a, i) || unknownAt(b, i))) {
            (*out)[i] = kUnknownDim;
        }
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
    std::vector<int64_t> shape;
    if (!Broadcast(Dims(*gradShape), Dims(*xShape), &shape)) {
        OP_LOGE(context, "grad %s and x %s do not broadcast", mishgrad::ShapeText(Dims(*gradShape)).c_str(),
                mishgrad::ShapeText(Dims(*xShape)).c_str());
        return ge::GRAPH_FAILED;
    }
    if (tanhxShape != nullptr) {
        const std::vector<int64_t> withoutTanhx = shape;
        if (!Broadcast(withoutTanhx, Dims(*tanhxShape), &shape)) {
            OP_LOGE(context, "tanhx %s does not broadcast with grad and x, whose shape is %s",
                    mishgrad::ShapeText(Dims(*tanhxShape)).c_str(), mishgrad::ShapeText(withoutTanhx).c_str());
            return ge::GRAPH_FAILED;
        }
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
