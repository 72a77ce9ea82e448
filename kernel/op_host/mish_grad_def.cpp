// Op definition of MishGrad for CANN's op registry (builds on an Ascend host only).
//
// Inputs grad, x and the optional tanhx; output x_grad. Every combination of the three dtypes
// and six formats is declared: an element-wise op does not care about the layout, so each
// (dtype, format) pair of the inputs maps to the same pair for the output.
#include <vector>

#include "register/op_def_registry.h"

namespace ops {
namespace {

const std::vector<ge::DataType> kDtypes = {ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16};
const std::vector<ge::Format> kFormats = {ge::FORMAT_ND,      ge::FORMAT_NCHW,      ge::FORMAT_NHWC,
                                          ge::FORMAT_NC1HWC0, ge::FORMAT_FRACTAL_Z, ge::FORMAT_FRACTAL_NZ};

// The op registry lists supported combinations as parallel vectors: entry i of the dtype list
// goes with entry i of the format list.
std::vector<ge::DataType> DtypeColumn()
{
    std::vector<ge::DataType> column;
    for (ge::DataType dtype : kDtypes) {
        column.insert(column.end(), kFormats.size(), dtype);
    }
    return column;
}

std::vector<ge::Format> FormatColumn()
{
    std::vector<ge::Format> column;
    for (size_t i = 0; i < kDtypes.size(); ++i) {
        column.insert(column.end(), kFormats.begin(), kFormats.end());
    }
    return column;
}

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
    }

private:
    static void Declare(OpParamDef& param)
    {
        param.DataType(DtypeColumn()).Format(FormatColumn()).UnknownShapeFormat(FormatColumn());
    }
};

OP_ADD(MishGrad);

}  // namespace ops
