// CANN's tiling entry for MishGrad: a thin adapter around the pure C++ ComputeTiling
// (common/mish_grad_tiling.h), which the CPU twin runs too. It reads the platform's UB size,
// vector-core count and SoC version and the tensor's length and dtype, and writes the plan.
//
// Every failure is logged with its reason, as ops-nn's operators log theirs: OP_LOGE of opbase's
// log/log.h, given the context, which names the op as "type:name" (cann/ops-nn e5c3fa9,
// experimental/activation/mish_grad/op_host/mish_grad_tiling.cpp lines 16 and 45-60; cann/opbase
// aa3cd74, include/op_common/log/log.h lines 94-104 and 1077-1081).
#include <cinttypes>

#include "log/log.h"
#include "register/op_impl_registry.h"
#include "tiling/platform/platform_ascendc.h"

#include "../common/mish_grad_dtypes.h"
#include "../common/mish_grad_tiling.h"
#include "../op_kernel/mish_grad_tiling_data.h"

namespace optiling {
namespace {

constexpr size_t kInputGrad = 0;
constexpr size_t kInputX = 1;
constexpr size_t kInputTanhx = 2;

struct MishGradCompileInfo {};

ge::graphStatus TilingParseMishGrad(gert::TilingParseContext* context)
{
    if (context == nullptr) {
        OP_LOGE(context, "the tiling-parse context is null");
        return ge::GRAPH_FAILED;
    }
    return ge::GRAPH_SUCCESS;
}

// What the tiling knows of the SoC's UB (common/mish_grad_tiling.h), or null for a SoC it does
// not know: then neither the UB the platform reports nor where Select's scratch lies is known.
// ASCEND910B alone: CANN's family of Atlas A2 and A3, the SoCs the op definition has a kernel
// for (op_host/mish_grad_def.cpp); on any other this tiling would never be asked.
const mishgrad::SocUb* SocUbOf(platform_ascendc::SocVersion soc)
{
    return soc == platform_ascendc::SocVersion::ASCEND910B ? &mishgrad::kAscend910BUb : nullptr;
}

static_assert(int32_t{ge::DT_FLOAT} == mishgrad::kDtFloat && int32_t{ge::DT_FLOAT16} == mishgrad::kDtFloat16 &&
                  int32_t{ge::DT_BF16} == mishgrad::kDtBf16,
              "ge::DataType numbers the dtypes as common/mish_grad_dtypes.h does");

// The element size of a dtype the kernel supports, 0 for any other.
uint32_t DtypeSize(ge::DataType dtype)
{
    return mishgrad::DtypeSize(static_cast<int32_t>(dtype));
}

// The kernel reads grad (and tanhx) as arrays of x's length: it does not broadcast.
// aclnnMishBackward broadcasts its inputs before it launches MishGrad, and the op prototype
// requires grad and tanhx to have x's shape (cann/ops-nn e5c3fa9,
// activation/mish_grad/op_graph/mish_grad_proto.h lines 25-27).
bool SameLength(gert::TilingContext* context, const gert::StorageShape* input, const char* name, int64_t length)
{
    const int64_t inputLength = input->GetStorageShape().GetShapeSize();
    if (inputLength != length) {
        OP_LOGE(context, "input %s has %" PRId64 " elements and x has %" PRId64 ": the kernel does not broadcast",
                name, inputLength, length);
        return false;
    }
    return true;
}

ge::graphStatus TilingMishGrad(gert::TilingContext* context)
{
    if (context == nullptr || context->GetPlatformInfo() == nullptr) {
        OP_LOGE(context, "the tiling context or its platform info is null");
        return ge::GRAPH_FAILED;
    }
    const gert::StorageShape* gradShape = context->GetInputShape(kInputGrad);
    const gert::StorageShape* xShape = context->GetInputShape(kInputX);
    const auto* xDesc = context->GetInputDesc(kInputX);
    if (gradShape == nullptr || xShape == nullptr || xDesc == nullptr) {
        OP_LOGE(context, "input grad or x has no shape, or x no tensor description");
        return ge::GRAPH_FAILED;
    }
    const gert::StorageShape* tanhxShape = context->GetOptionalInputShape(kInputTanhx);
    const int64_t length = xShape->GetStorageShape().GetShapeSize();
    if (length < 0) {
        OP_LOGE(context, "x's shape is not known (its size is %" PRId64 ")", length);
        return ge::GRAPH_FAILED;
    }
    if (!SameLength(context, gradShape, "grad", length) ||
        (tanhxShape != nullptr && !SameLength(context, tanhxShape, "tanhx", length))) {
        return ge::GRAPH_FAILED;
    }

    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const platform_ascendc::SocVersion soc = platform.GetSocVersion();
    const mishgrad::SocUb* socUb = SocUbOf(soc);
    if (socUb == nullptr) {
        OP_LOGE(context, "SoC version %d is not supported: the tiling knows the UB of Ascend910B (Atlas A2, A3) only",
                static_cast<int>(soc));
        return ge::GRAPH_FAILED;
    }
    uint64_t ubBytes = 0;  // as reported: the physical UB less socUb->reservedBytes
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
    const uint32_t vectorCores = platform.GetCoreNumAiv();
    const uint32_t dtypeSize = DtypeSize(xDesc->GetDataType());
    if (dtypeSize == 0) {
        OP_LOGE(context, "x has dtype %d: MishGrad supports float32, float16 and bfloat16",
                static_cast<int>(xDesc->GetDataType()));
        return ge::GRAPH_FAILED;
    }

    MishGradTilingData* tiling = context->GetTilingData<MishGradTilingData>();
    if (tiling == nullptr) {
        OP_LOGE(context, "the tiling data buffer cannot hold MishGradTilingData (%zu bytes)",
                sizeof(MishGradTilingData));
        return ge::GRAPH_FAILED;
    }
    const mishgrad::TilingStatus status = mishgrad::ComputeTiling(
        static_cast<uint64_t>(length), dtypeSize, tanhxShape != nullptr, ubBytes, vectorCores, *socUb, tiling);
    if (status != mishgrad::TilingStatus::kOk) {
        OP_LOGE(context,
                "no tiling: %s (%" PRId64 " elements of %" PRIu32 " bytes, %s tanhx, %" PRIu64
                " bytes of UB, %" PRIu32 " vector cores)",
                mishgrad::TilingStatusText(status), length, dtypeSize, tanhxShape != nullptr ? "with" : "without",
                ubBytes, vectorCores);
        return ge::GRAPH_FAILED;
    }
    context->SetBlockDim(tiling->blockDim);
    // Key 0, the only one: each binary holds one variant of the kernel. CANN compiles
    // op_kernel/mish_grad.cpp once per dtype of the op definition, with DTYPE_X set (asc-devkit
    // 82b89a1, cmake/asc/fwk_modules/util/ascendc_impl_build.py lines 88-96), and gives a kernel
    // with no TILING_KEY_IS branch and no TPL template the single key 0
    // (tools/build/asc_op_compile_base/asc_op_compiler/kernel_info_infer.py lines 639-640). Tile
    // sizes and core counts travel in the tiling data and need no key (asc-devkit's guide,
    // docs/zh/guide/编程指南/高级编程/Aclnn算子工程化开发/设计与实现/多分支策略.md line 42).
    // tanhx changes the flow at run time, both flows in one binary (line 19): a TPL key would
    // split them for the graph path alone, since aclnnMishBackward never passes tanhx.
    context->SetTilingKey(0);

    size_t* workspace = context->GetWorkspaceSizes(1);
    if (workspace == nullptr) {
        OP_LOGE(context, "the context has no room for the workspace size");
        return ge::GRAPH_FAILED;
    }
    // CANN's system workspace, then the kernel's own: its stamp (op_kernel/mish_grad_stamp.h).
    workspace[0] = platform.GetLibApiWorkSpaceSize() + mishgrad::kStampBytes;
    return ge::GRAPH_SUCCESS;
}

}  // namespace

IMPL_OP_OPTILING(MishGrad).Tiling(TilingMishGrad).TilingParse<MishGradCompileInfo>(TilingParseMishGrad);

}  // namespace optiling
