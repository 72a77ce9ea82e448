// Op definition of MishGrad for CANN's op registry (builds on an Ascend host only).
//
// Inputs grad, x and the optional tanhx; output x_grad; each in float32, float16 or bfloat16,
// and in format ND only. ND only, as ops-nn's production MishGrad declares it (cann/ops-nn
// e5c3fa9, activation/mish_grad/op_host/mish_grad_def.cpp lines 17-36) and as its op prototype
// documents the inputs (activation/mish_grad/op_graph/mish_grad_proto.h lines 25-30: x in
// "Format:ND", grad, tanhx and x_grad like x). The tiling counts the elements of x's storage
// shape and the kernel walks each tensor as one flat array, so a padded private format
// (NC1HWC0, FRACTAL_Z, FRACTAL_NZ) would also be computed on its padding, which no test covers.
//
// The op registry lists supported combinations as parallel vectors: entry i of the dtype list
// goes with entry i of the format list. CANN's code generator compiles this file with
// -std=c++11, so it stays C++11.
//
// Atlas A2 (ascend910b) and A3 (ascend910_93) each get a config, as ops-nn's experimental
// HardSwishGrad registers both (cann/ops-nn e5c3fa9,
// experimental/activation/hard_swish_grad/op_host/hard_swish_grad_def.cpp lines 38-39): the
// package then carries a kernel for each. The tiling is registered by op type alone, the first
// registration winning (cann/metadef 786891c, base/registry/op_impl_space_registry_v2_impl.cc
// lines 25-33), while nnopbase looks for a package's kernel only in the folder of the SoC it
// runs on (cann/opbase aa3cd74, src/nnopbase/composite_op/aclnn_engine/op_kernel_lib.cpp lines
// 101-130 and 324-351). Without a config for A3, an A3 would run CANN's own MishGrad kernel with
// this tiling.
#include <vector>

#include "register/op_def_registry.h"

#include "../common/mish_grad_dtypes.h"

namespace ops {
namespace {

// The dtypes of common/mish_grad_dtypes.h, as the registry names them (ge::DataType numbers
// them the same way).
#define MISHGRAD_GE_DTYPE(id, code, ...) static_cast<ge::DataType>(code),
const std::vector<ge::DataType> kDtypes = {MISHGRAD_DTYPES(MISHGRAD_GE_DTYPE)};
#undef MISHGRAD_GE_DTYPE
const std::vector<ge::Format> kFormats(kDtypes.size(), ge::FORMAT_ND);

}  // namespace

class MishGrad : public OpDef {
public:
    explicit MishGrad(const char* name) : OpDef(name)
    {
        Declare(this->Input("grad").ParamType(REQUIRED));
        Declare(this->Input("x").ParamType(REQUIRED));
        Declare(this->Input("tanhx").ParamType(OPTIONAL));
        Declare(this->Output("x_grad").ParamType(REQUIRED));

        OpAICoreConfig config;
        config.DynamicCompileStaticFlag(true)
            .DynamicFormatFlag(false)
            .DynamicRankSupportFlag(true)
            .DynamicShapeSupportFlag(true)
            .NeedCheckSupportFlag(false)
            .PrecisionReduceFlag(true)
            .ExtendCfgInfo("opFile.value", "mish_grad");  // the kernel entry file: op_kernel/mish_grad.cpp
        this->AICore().AddConfig("ascend910b", config);
        this->AICore().AddConfig("ascend910_93", config);
    }

private:
    static void Declare(OpParamDef& param) { param.DataType(kDtypes).Format(kFormats).UnknownShapeFormat(kFormats); }
};

OP_ADD(MishGrad);

}  // namespace ops
