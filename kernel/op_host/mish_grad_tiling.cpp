// CANN's tiling entry for MishGrad: a thin adapter around the pure C++ ComputeTiling
// (common/mish_grad_tiling.h), which the CPU twin runs too. It reads the platform's UB size,
// vector-core count and SoC version and the tensor's length and dtype, and writes the plan.
#include "register/op_impl_registry.h"
#include "tiling/platform/platform_ascendc.h"

#include "../common/mish_grad_tiling.h"
#include "../op_kernel/mish_grad_tiling_data.h"

namespace optiling {
namespace {

constexpr size_t kInputX = 1;
constexpr size_t kInputTanhx = 2;

struct MishGradCompileInfo {};

ge::graphStatus TilingParseMishGrad(gert::TilingParseContext* context)
{
    return context == nullptr ? ge::GRAPH_FAILED : ge::GRAPH_SUCCESS;
}

ge::graphStatus TilingMishGrad(gert::TilingContext* context)
{
    if (context == nullptr || context->GetPlatformInfo() == nullptr || context->GetInputShape(kInputX) == nullptr ||
        context->GetInputDesc(kInputX) == nullptr) {
        return ge::GRAPH_FAILED;
    }
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubBytes = 0;  // as reported: the physical UB less what the system reserves
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
    const uint32_t vectorCores = platform.GetCoreNumAiv();
    // Select's tensor modes need an 8 KB scratch area in UB on every SoC but Ascend 950, whose
    // count-based Select needs none (AscendC's Select page, "UB space").
    const bool selectUsesScratch = platform.GetSocVersion() != platform_ascendc::SocVersion::ASCEND950;

    const uint64_t length = context->GetInputShape(kInputX)->GetStorageShape().GetShapeSize();
    const bool hasTanhx = context->GetOptionalInputShape(kInputTanhx) != nullptr;
    const uint32_t dtypeSize = context->GetInputDesc(kInputX)->GetDataType() == ge::DT_FLOAT ? 4 : 2;

    MishGradTilingData* tiling = context->GetTilingData<MishGradTilingData>();
    if (tiling == nullptr ||
        mishgrad::ComputeTiling(length, dtypeSize, hasTanhx, ubBytes, vectorCores, selectUsesScratch, tiling) !=
            mishgrad::TilingStatus::kOk) {
        return ge::GRAPH_FAILED;
    }
    context->SetBlockDim(tiling->blockDim);
    context->SetTilingKey(0);

    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = platform.GetLibApiWorkSpaceSize();  // the kernel itself needs none
    return ge::GRAPH_SUCCESS;
}

}  // namespace

IMPL_OP_OPTILING(MishGrad).Tiling(TilingMishGrad).TilingParse<MishGradCompileInfo>(TilingParseMishGrad);

}  // namespace optiling
